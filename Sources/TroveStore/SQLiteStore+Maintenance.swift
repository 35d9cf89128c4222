import CSQLite

extension SQLiteStore {
    /// Records a new size and mtime for a document whose content did not change (a `touch`, a checkout).
    package func updateDocumentStat(id: Int64, size: Int64, modifiedNanoseconds: Int64) throws {
        let statement = try database.cachedStatement("UPDATE documents SET size = ?, mtime_ns = ? WHERE id = ?")
        statement.reset()
        try statement.bind(size, at: 1)
        try statement.bind(modifiedNanoseconds, at: 2)
        try statement.bind(id, at: 3)
        try statement.run()
    }

    /// Whether the linked SQLite has FTS5, which keyword search needs (for `trove doctor`).
    package static func sqliteHasFTS5() -> Bool {
        sqlite3_compileoption_used("ENABLE_FTS5") == 1
    }

    /// The linked SQLite's version, e.g. `3.40.1`.
    package static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}
