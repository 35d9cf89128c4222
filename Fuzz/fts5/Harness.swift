import CSQLite

// Fuzz target: the FTS5 query builder (`SQLiteStore.ftsQuery`). Oracle: SQLite accepts every query it builds —
// a MATCH with it prepares and runs to completion on a real FTS5 table (SQLITE_DONE), never a syntax error.
nonisolated(unsafe) private var database: OpaquePointer? = {
    var handle: OpaquePointer?
    precondition(sqlite3_open(":memory:", &handle) == SQLITE_OK)
    let setup = """
        CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
        INSERT INTO t (text) VALUES ('the kayak paddle feathering angle'), ('rotate the api key'), ('café naïve');
        """
    precondition(sqlite3_exec(handle, setup, nil, nil, nil) == SQLITE_OK)
    return handle
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let query = SQLiteStore.ftsQuery(text) else { return 0 }
    var statement: OpaquePointer?
    precondition(
        sqlite3_prepare_v2(database, "SELECT rowid, bm25(t) FROM t WHERE t MATCH ?", -1, &statement, nil) == SQLITE_OK)
    defer { sqlite3_finalize(statement) }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    // With its byte length, as `Statement.bind` does: an embedded NUL reaches SQLite too.
    precondition(sqlite3_bind_text(statement, 1, query, Int32(query.utf8.count), transient) == SQLITE_OK)
    var rc = sqlite3_step(statement)
    while rc == SQLITE_ROW { rc = sqlite3_step(statement) }
    if rc != SQLITE_DONE {
        let message = String(cString: sqlite3_errmsg(database))
        preconditionFailure("SQLite refused the query \(query) built from \(text.debugDescription): \(message)")
    }
    return 0
}
