/// What changed since the last pass, by root: root-relative paths (files, or folders with everything below them),
/// or the whole root. Bounded: past `limit` paths a root is rescanned whole instead, which a pass covers just as
/// well (a no-op pass over 10k files is ~0.15 s), so a long outage or a huge burst never grows it without end.
struct ChangeSet: Sendable, Equatable {
    /// Paths per root beyond which the whole root is rescanned.
    static let limit = 512

    /// Root → relative paths; `[""]` is the whole root.
    private(set) var paths: [String: Set<String>] = [:]

    var isEmpty: Bool { paths.isEmpty }

    /// How many paths (a whole root counts as one).
    var count: Int { paths.values.reduce(0) { $0 + $1.count } }

    /// Records `relative` (`""`: all of `root`).
    mutating func add(root: String, _ relative: String) {
        if paths[root]?.contains("") == true { return }
        if relative.isEmpty || (paths[root]?.count ?? 0) >= Self.limit {
            paths[root] = [""]
            return
        }
        paths[root, default: []].insert(relative)
    }

    /// Adds everything in `other`.
    mutating func merge(_ other: ChangeSet) {
        for (root, relatives) in other.paths {
            for relative in relatives { add(root: root, relative) }
        }
    }

    /// The roots with changes, sorted.
    var roots: [String] { paths.keys.sorted() }

    /// The absolute paths for `IndexOptions.within`; nil when every changed root is wanted whole.
    var absolutePaths: [String]? {
        if paths.values.allSatisfy({ $0 == [""] }) { return nil }
        return paths.flatMap { root, relatives in
            relatives.map { $0.isEmpty ? root : (root.hasSuffix("/") ? root + $0 : root + "/" + $0) }
        }.sorted()
    }
}
