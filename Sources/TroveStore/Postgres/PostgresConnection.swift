import CPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libpq connection: parameterised statements (`PQexecParams`, values as text, never spliced into SQL),
/// transactions with savepoints for nesting, and libpq's failures as one-line `StoreError`s that carry the SQL
/// (never the values). Not thread-safe: one owner, like the SQLite wrapper.
final class PostgresConnection {
    /// The location as shown in messages (no password).
    let shown: String
    private let handle: OpaquePointer
    /// Open transactions: 0 outside, 1 in BEGIN, more in savepoints.
    private(set) var depth = 0

    /// Connects with `url` (libpq's rules for credentials and TLS apply); throws `.unavailable` when the server
    /// cannot be reached or refuses us.
    init(url: String, shown: String) throws {
        self.shown = shown
        // Defaults first: the URL's own values override them (expand_dbname). A 10 s connect timeout instead of
        // libpq's none, so an unreachable host fails in seconds rather than hanging a command.
        let keywords = ["application_name", "connect_timeout", "dbname"]
        let values = ["trove", "10", url]
        let connection = withCStrings(keywords) { keys in
            withCStrings(values) { values in PQconnectdbParams(keys, values, 1) }
        }
        guard let connection else {
            throw StoreError(code: .unavailable, message: "could not connect to \(shown): libpq is out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.oneLine(PQerrorMessage(connection))
            PQfinish(connection)
            let hint =
                reason.contains("password") || reason.contains("authentication")
                ? "; check the user and password (in the URL, PGPASSWORD, ~/.pgpass or a service file)"
                : reason.contains("Is the server running") ? "" : "; is the server running, and does the URL name it?"
            throw StoreError(code: .unavailable, message: "could not connect to \(shown): \(reason)\(hint)")
        }
        handle = connection
        // NOTICEs (e.g. "text-search query contains only stop words") would go to stderr by default.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Runs one statement with `parameters` ($1, $2 … as text; nil is NULL) and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws -> PostgresRows {
        let result = withOptionalCStrings(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try checked(result, sql: sql)
    }

    /// Runs statements without parameters (several, separated by `;`: a migration).
    func execute(_ sql: String) throws {
        try checked(PQexec(handle, sql), sql: sql)
    }

    /// The one value of a one-row, one-column query, nil when it has no row or is NULL.
    func scalar(_ sql: String, _ parameters: [String?] = []) throws -> String? {
        let rows = try query(sql, parameters)
        return rows.count > 0 ? rows.optionalString(0, 0) : nil
    }

    /// Runs `body` in a transaction (a savepoint when nested); rolls back when it throws, and rethrows.
    /// `beforeCommit` runs last inside the outermost transaction (the store bumps its data version there).
    func transaction<T>(beforeCommit: () throws -> Void = {}, _ body: () throws -> T) throws -> T {
        let savepoint = "trove_\(depth)"
        try execute(depth == 0 ? "BEGIN" : "SAVEPOINT \(savepoint)")
        depth += 1
        do {
            let value = try body()
            if depth == 1 { try beforeCommit() }
            depth -= 1
            try execute(depth == 0 ? "COMMIT" : "RELEASE SAVEPOINT \(savepoint)")
            return value
        } catch {
            depth -= 1
            // A lost connection cannot roll back; the server does it when the session ends.
            try? execute(depth == 0 ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)")
            throw error
        }
    }

    /// The result, or the error it carries as a `StoreError`.
    @discardableResult
    private func checked(_ result: OpaquePointer?, sql: String) throws -> PostgresRows {
        guard let result else {
            throw StoreError(
                code: .unavailable, message: "lost the connection to \(shown): \(Self.oneLine(PQerrorMessage(handle)))",
                sql: sql)
        }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return PostgresRows(result) }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let message = Self.oneLine(PQresultErrorMessage(result))
        PQclear(result)
        if PQstatus(handle) != CONNECTION_OK {
            throw StoreError(code: .unavailable, message: "lost the connection to \(shown): \(message)", sql: sql)
        }
        throw Self.error(state: state, message: message, shown: shown, sql: sql)
    }

    /// A server error as the sentence a user can act on.
    static func error(state: String, message: String, shown: String, sql: String) -> StoreError {
        let text =
            switch state {
            case "42501":
                "PostgreSQL refused \(shown): \(message) — grant this role the privileges README.md lists"
            case "53100":
                "the PostgreSQL server of \(shown) is out of disk space: \(message) — free some and rerun; "
                    + "nothing was lost"
            case "40P01", "40001":
                "PostgreSQL aborted a transaction on \(shown) to resolve a conflict (\(message)) — run the command "
                    + "again"
            default:
                "PostgreSQL failed on \(shown): \(message) (SQLSTATE \(state))"
            }
        return StoreError(code: .postgres(state), message: text, sql: sql)
    }

    /// libpq's multi-line message as one line: "ERROR:  x\nDETAIL: y" becomes "x (y)"-ish, whitespace collapsed.
    static func oneLine(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        var text = String(cString: message)
        for prefix in ["ERROR:", "FATAL:"] where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        let line = words.joined(separator: " ")
        return line.isEmpty ? "unknown error" : line
    }
}

/// The rows of one result; cleared when released.
final class PostgresRows {
    private let result: OpaquePointer
    /// Rows returned.
    let count: Int

    init(_ result: OpaquePointer) {
        self.result = result
        count = Int(PQntuples(result))
    }

    deinit { PQclear(result) }

    /// Column `column` of row `row` as text; "" for NULL.
    func string(_ row: Int, _ column: Int) -> String {
        String(cString: PQgetvalue(result, Int32(row), Int32(column)))
    }

    /// The value, nil for NULL.
    func optionalString(_ row: Int, _ column: Int) -> String? {
        PQgetisnull(result, Int32(row), Int32(column)) == 1 ? nil : string(row, column)
    }

    /// The value as an integer (0 for NULL or text that is not one).
    func int64(_ row: Int, _ column: Int) -> Int64 { Int64(string(row, column)) ?? 0 }

    /// The value as an Int.
    func int(_ row: Int, _ column: Int) -> Int { Int(int64(row, column)) }

    /// The value as a Double.
    func double(_ row: Int, _ column: Int) -> Double { Double(string(row, column)) ?? 0 }
}

/// Calls `body` with `strings` as a C array of C strings, valid only during the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    withOptionalCStrings(strings + [nil]) { body($0!) }
}

/// Calls `body` with `strings` as a C array (nil entries stay NULL), or nil for an empty list.
private func withOptionalCStrings<R>(
    _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R
) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { UnsafePointer($0) }
    if pointers.isEmpty { return body(nil) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}
