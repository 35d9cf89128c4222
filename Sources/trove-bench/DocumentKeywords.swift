import CSQLite
import CTroveFTS
import TroveSearch
import TroveStore

/// Keyword ranking with document-level statistics, for comparing with the index's passage-level ones: whole
/// documents in an in-memory FTS5 table with the index's tokenizer, ranked by the same `trove_bm25`.
final class DocumentKeywords {
    private let handle: OpaquePointer

    /// A table of `documents` (row id: document number, text) in memory.
    init(documents: [(number: Int, text: String)]) throws {
        var connection: OpaquePointer?
        guard sqlite3_open(":memory:", &connection) == SQLITE_OK, let connection,
            trove_fts_register(connection) == SQLITE_OK
        else { throw BenchError("cannot open an in-memory SQLite with FTS5") }
        handle = connection
        try execute(
            "CREATE VIRTUAL TABLE documents USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2')")
        try execute("BEGIN")
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, "INSERT INTO documents(rowid, text) VALUES (?, ?)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for document in documents {
            sqlite3_bind_int64(statement, 1, Int64(document.number))
            sqlite3_bind_text(statement, 2, document.text, -1, transient)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(message) }
            sqlite3_reset(statement)
        }
        try execute("COMMIT")
    }

    deinit { sqlite3_close_v2(handle) }

    /// The best `limit` documents for `query` (ids are document numbers), with the index's query building.
    func search(_ query: String, limit: Int, bm25: BM25) throws -> [ScoredRow] {
        guard let match = SQLiteStore.ftsQuery(query) else { return [] }
        var statement: OpaquePointer?
        let sql = """
            SELECT rowid, trove_bm25(documents, ?1, ?2) AS score FROM documents WHERE documents MATCH ?3
            ORDER BY score DESC, rowid LIMIT ?4
            """
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw BenchError(message) }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_double(statement, 1, bm25.k1)
        sqlite3_bind_double(statement, 2, bm25.b)
        sqlite3_bind_text(statement, 3, match, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        sqlite3_bind_int(statement, 4, Int32(limit))
        var rows: [ScoredRow] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(
                ScoredRow(id: sqlite3_column_int64(statement, 0), score: Float(sqlite3_column_double(statement, 1))))
        }
        return rows
    }

    private var message: String { String(cString: sqlite3_errmsg(handle)) }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError(message) }
    }
}
