import TroveStore

/// Where the index file lives when the user does not say.
public enum IndexLocation {
    /// `--index PATH`, else `TROVE_INDEX`, else `$XDG_DATA_HOME/trove/index.sqlite`, else `~/.local/share/trove/index.sqlite`.
    public static func resolve(flag: String?, environment: [String: String]) -> String {
        if let flag, !flag.isEmpty { return expandingTilde(flag, environment: environment) }
        if let path = environment["TROVE_INDEX"], !path.isEmpty { return expandingTilde(path, environment: environment) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/trove/index.sqlite" }
        return home(environment) + "/.local/share/trove/index.sqlite"
    }

    /// Whether an index exists at `location`: a file at the path, or, for a PostgreSQL URL, a schema Trove created
    /// there (the server is asked; an unreachable one throws, which a caller reports as such).
    public static func indexExists(_ location: String) throws -> Bool {
        guard StoreLocation.isPostgres(location) else { return StoreLocation.exists(location) }
        do {
            _ = try StoreLocation.open(location, createIfMissing: false)
            return true
        } catch let error as StoreError where error.code == .missingIndex {
            return false
        }
    }

    /// Whether `location` is a PostgreSQL URL rather than a file path.
    public static func isPostgres(_ location: String) -> Bool { StoreLocation.isPostgres(location) }

    /// `location` as it may be shown: a PostgreSQL URL without its password (logs, errors, `status`).
    public static func display(_ location: String) -> String { StoreLocation.display(location) }

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
