/// How the last `trove index` pass over a folder ended: when, and how many of its files it left unindexed (0 for a
/// complete pass). Kept in the manifest table under `run:PATH` (no migration, and the same in every store); the
/// fingerprint never reads these rows.
package struct RunRecord: Sendable, Equatable {
    /// When the pass ended, in seconds since 1970.
    package var finishedAt: Int64
    /// Whether it stopped early (Ctrl-C, the model server gone) instead of finishing.
    package var interrupted: Bool
    /// Files it found but did not index because it stopped early; 0 when it finished.
    package var filesLeft: Int

    package init(finishedAt: Int64, interrupted: Bool, filesLeft: Int = 0) {
        self.finishedAt = finishedAt
        self.interrupted = interrupted
        self.filesLeft = filesLeft
    }

    /// The manifest key prefix of run rows.
    static let keyPrefix = "run:"

    /// The manifest key for the folder at `root`.
    static func key(root: String) -> String { keyPrefix + root }

    /// The row's value: `FINISHED complete` or `FINISHED interrupted LEFT`.
    var text: String { interrupted ? "\(finishedAt) interrupted \(filesLeft)" : "\(finishedAt) complete" }

    /// The record a row holds; nil for a value that does not parse (such a row is ignored, as if no run was kept).
    init?(text: String) {
        let parts = text.split(separator: " ")
        guard let finished = parts.first.flatMap({ Int64($0) }) else { return nil }
        switch parts.dropFirst().map(String.init) {
        case ["complete"]: self.init(finishedAt: finished, interrupted: false)
        case let rest where rest.count == 2 && rest[0] == "interrupted":
            guard let left = Int(rest[1]), left >= 0 else { return nil }
            self.init(finishedAt: finished, interrupted: true, filesLeft: left)
        default: return nil
        }
    }

    /// The records among manifest rows, by folder.
    static func records(in rows: [String: String]) -> [String: RunRecord] {
        var records: [String: RunRecord] = [:]
        for (key, value) in rows where key.hasPrefix(keyPrefix) {
            records[String(key.dropFirst(keyPrefix.count))] = RunRecord(text: value)
        }
        return records
    }
}
