/// How each folder's last indexing pass ended (`RunRecord`), in the manifest table's `run:` rows.
extension SQLiteStore {
    /// The last pass over each folder, by absolute path.
    package func runRecords() throws -> [String: RunRecord] {
        try database.withStatement("SELECT key, value FROM manifest WHERE key LIKE 'run:%'") { statement in
            var rows: [String: String] = [:]
            while try statement.step() { rows[statement.string(0)] = statement.string(1) }
            return RunRecord.records(in: rows)
        }
    }

    /// Records how the pass over `root` ended, replacing the one before.
    package func recordRun(root: String, _ record: RunRecord) throws {
        try database.withStatement("INSERT OR REPLACE INTO manifest (key, value) VALUES (?, ?)") { statement in
            try statement.bind(RunRecord.key(root: root), at: 1)
            try statement.bind(record.text, at: 2)
            try statement.run()
        }
    }
}
