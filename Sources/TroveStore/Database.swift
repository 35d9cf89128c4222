import CSQLite
import CTroveFTS

// SQLite's SQLITE_TRANSIENT is a macro casting -1 to a destructor; Swift cannot import it, so we rebuild it.
// A computed property because a global function-pointer constant is not Sendable under Swift 6.
var sqliteTransient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

/// One SQLite connection with a cache of prepared statements. Single owner, synchronous.
final class Database {
    /// The database file, used in error messages.
    let path: String
    /// The raw connection.
    let handle: OpaquePointer
    /// Prepared statements keyed by their SQL, reused on hot paths.
    private var cache: [String: Statement] = [:]
    /// Open transactions and savepoints; 0 means autocommit.
    private(set) var transactionDepth = 0

    /// Opens `path` with `flags`; `SQLITE_OPEN_EXRESCODE` is always added so every code is extended.
    init(path: String, flags: Int32) throws {
        self.path = path
        var connection: OpaquePointer?
        let rc = sqlite3_open_v2(path, &connection, flags | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            // open_v2 hands back a connection even on failure; it must still be closed.
            if let connection { sqlite3_close_v2(connection) }
            throw StoreError.cannotOpen(path: path, reason: message)
        }
        // The keyword tables use our tokenizer and ranking function; without them no statement on them compiles.
        let registered = trove_fts_register(connection)
        guard registered == SQLITE_OK else {
            sqlite3_close_v2(connection)
            throw StoreError.cannotOpen(
                path: path, reason: "this SQLite has no FTS5 (\(String(cString: sqlite3_errstr(registered))))")
        }
        handle = connection
        sqlite3_extended_result_codes(handle, 1)
        // Another trove process may hold the write lock for a batch; wait for it rather than fail at once.
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        // Finalize every statement first so the close below really closes (close_v2 would otherwise leave a zombie).
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// A prepared statement for `sql`, compiled once and reused; reset it after use (see `withStatement`).
    func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = cache[sql] { return statement }
        let statement = try Statement(database: self, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs `body` with the cached statement for `sql`, then resets it and clears its bindings.
    /// Resetting matters: a stepped SELECT left open pins a read snapshot and blocks WAL checkpoints.
    func withStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// Runs one or more `;`-separated statements that take no parameters and whose rows are ignored.
    func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        defer { sqlite3_free(errorMessage) }
        guard rc == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            throw StoreError.sqlite(code: sqlite3_extended_errcode(handle), message: message, path: path, sql: sql)
        }
    }

    /// The first column of the first row of `sql` as an integer (e.g. `PRAGMA user_version`), or nil when no row.
    func scalarInt(_ sql: String) throws -> Int64? {
        try withStatement(sql) { statement in
            try statement.step() ? statement.int64(0) : nil
        }
    }

    /// The first column of the first row of `sql` as text, or nil when no row.
    func scalarText(_ sql: String) throws -> String? {
        try withStatement(sql) { statement in
            try statement.step() ? statement.string(0) : nil
        }
    }

    /// The rowid of the last successful INSERT on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The error SQLite reports for `code` on this connection, while running `sql`.
    func error(code: Int32, sql: String?) -> StoreError {
        StoreError.sqlite(code: code, message: String(cString: sqlite3_errmsg(handle)), path: path, sql: sql)
    }

    // MARK: Transactions

    /// Runs `body` in a transaction. The outermost call uses `BEGIN IMMEDIATE` (takes the write lock up front,
    /// so a busy writer is waited for at BEGIN instead of failing mid-batch); nested calls use a SAVEPOINT, so a
    /// nested failure rolls back only its own work and rethrows. `deferred` starts a read-only snapshot instead.
    @discardableResult
    func transaction<T>(deferred: Bool = false, _ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        let savepoint = "trove_\(depth)"
        if depth == 0 {
            try execute(deferred ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE")
        } else {
            try execute("SAVEPOINT \(savepoint)")
        }
        transactionDepth += 1
        let result: T
        do {
            result = try body()
        } catch {
            transactionDepth -= 1
            rollback(depth: depth, savepoint: savepoint)
            throw error
        }
        do {
            try execute(depth == 0 ? "COMMIT" : "RELEASE \(savepoint)")
        } catch {
            // A failed COMMIT (disk full, I/O) may leave the transaction open; roll it back so the connection is usable.
            transactionDepth -= 1
            rollback(depth: depth, savepoint: savepoint)
            throw error
        }
        transactionDepth -= 1
        return result
    }

    private func rollback(depth: Int, savepoint: String) {
        // Errors here are secondary to the one being rethrown; SQLite may already have rolled back on its own.
        if depth == 0 {
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
        } else {
            try? execute("ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
        }
    }
}

/// A prepared statement: bind by 1-based index, step, read columns by 0-based index. Finalized in `deinit`.
final class Statement {
    /// The SQL text, kept for error messages (never the bound values).
    let sql: String
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    private let path: String

    /// Compiles `sql`, hinting SQLite that the statement will be reused many times (every statement is cached).
    init(database: Database, sql: String) throws {
        self.sql = sql
        self.connection = database.handle
        self.path = database.path
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw database.error(code: rc == SQLITE_OK ? SQLITE_MISUSE : rc, sql: sql)
        }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding (1-based)

    /// Binds an integer.
    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds an integer.
    func bind(_ value: Int, at index: Int32) throws {
        try bind(Int64(value), at: index)
    }

    /// Binds a double.
    func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds text, or NULL when `value` is nil.
    func bind(_ value: String?, at index: Int32) throws {
        guard var value else { return try bindNull(at: index) }
        // withUTF8 gives the length, so embedded NULs survive and SQLite needs no strlen.
        let rc = value.withUTF8 { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                // A nil pointer would bind NULL, not the empty string.
                return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                // The 64-bit call: `Int32(count)` would trap over 2 GiB; SQLite answers SQLITE_TOOBIG instead.
                sqlite3_bind_text64(handle, index, $0, UInt64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
            }
        }
        try check(rc)
    }

    /// Binds a BLOB copied from `bytes` (an empty buffer binds a zero-length BLOB, not NULL).
    func bind(blob bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return try check(sqlite3_bind_zeroblob(handle, index, 0))
        }
        // The 64-bit call: `Int32(count)` would trap over 2 GiB; SQLite answers SQLITE_TOOBIG instead.
        try check(sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), sqliteTransient))
    }

    /// Binds a BLOB.
    func bind(blob bytes: [UInt8], at index: Int32) throws {
        try bytes.withUnsafeBytes { try bind(blob: $0, at: index) }
    }

    /// Binds NULL.
    func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index))
    }

    // MARK: Stepping

    /// Advances to the next row: true when a row is available, false when done.
    @discardableResult
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw StoreError.sqlite(
                code: rc, message: String(cString: sqlite3_errmsg(connection)), path: path, sql: sql)
        }
    }

    /// Steps until done, for statements that return no rows.
    func run() throws {
        while try step() {}
    }

    /// Rewinds the statement and clears its bindings so the next use starts clean.
    func reset() {
        // reset returns the last step's error, which was already thrown from step(); ignore it here.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Columns (0-based)

    /// The column as an integer (0 for NULL).
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The column as an Int (0 for NULL).
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    /// Whether a result column is NULL.
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column as a double (0 for NULL).
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column as text ("" for NULL).
    func string(_ column: Int32) -> String {
        // column_text before column_bytes: the documented order that yields the UTF-8 length.
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column's BLOB bytes, valid only until the next step/reset; empty for NULL or a zero-length BLOB.
    func blobBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        // column_blob before column_bytes, as for text.
        guard let blob = sqlite3_column_blob(handle, column) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(handle, column)))
    }

    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else {
            throw StoreError.sqlite(
                code: rc, message: String(cString: sqlite3_errmsg(connection)), path: path, sql: sql)
        }
    }
}
