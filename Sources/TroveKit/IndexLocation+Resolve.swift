import TroveStore

/// Where an index lives, under TroveKit's name: front ends see it without importing the store.
public typealias IndexLocation = TroveStore.IndexLocation

extension IndexLocation {
    /// Where the index file lives when the user does not say: `$XDG_DATA_HOME/trove/index.sqlite`, else
    /// `~/.local/share/trove/index.sqlite`.
    public static func standard(environment: [String: String]) -> IndexLocation {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return .file(data + "/trove/index.sqlite") }
        return .file(home(environment) + "/.local/share/trove/index.sqlite")
    }

    /// The location a user typed, `~` expanded as a shell would have done had it not been quoted.
    public static func parse(_ text: String, environment: [String: String]) -> IndexLocation {
        IndexLocation(expandingTilde(text, environment: environment))
    }

    /// Whether an index exists here: a file at the path, or, for a PostgreSQL URL, a schema Trove created there (the
    /// server is asked; an unreachable one throws, which a caller reports as such).
    public func exists() throws -> Bool {
        guard case .postgres = self else { return mayExist }
        do {
            _ = try open(createIfMissing: false)
            return true
        } catch let error as StoreError where error.code == .missingIndex {
            return false
        }
    }

    /// `~` and `~/x` become the home folder, as a shell would have done had the path not been quoted.
    public static func expandingTilde(_ path: String, environment: [String: String]) -> String {
        if path == "~" { return home(environment) }
        if path.hasPrefix("~/") { return home(environment) + path.dropFirst() }
        return path
    }

    private static func home(_ environment: [String: String]) -> String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/root"
    }
}
