/// How each folder's last indexing pass ended (`RunRecord`), in the manifest table's `run:` rows.
extension PostgresStore {
    /// The last pass over each folder, by absolute path.
    package func runRecords() throws -> [String: RunRecord] {
        let rows = try connection.query("SELECT key, value FROM manifest WHERE key LIKE 'run:%'")
        let pairs = (0..<rows.count).map { (rows.string($0, 0), rows.string($0, 1)) }
        return RunRecord.records(in: Dictionary(pairs) { $1 })
    }

    /// Records how the pass over `root` ended, replacing the one before.
    package func recordRun(root: String, _ record: RunRecord) throws {
        try connection.query(
            "INSERT INTO manifest (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [RunRecord.key(root: root), record.text])
    }
}
