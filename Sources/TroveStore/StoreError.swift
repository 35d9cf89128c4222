import CSQLite
import TroveSystem

/// Every failure of the store: a code, a lowercase sentence for the user, and the SQL that failed (never its values).
package struct StoreError: TroveError, CustomDebugStringConvertible {
    /// What went wrong, for code that reacts to it.
    package enum Code: Sendable, Equatable {
        case missingIndex, cannotOpen
        case sqlite(Int32)
        /// PostgreSQL refused a statement; its SQLSTATE (e.g. `42501`, insufficient privilege).
        case postgres(String)
        /// The PostgreSQL server cannot be reached or refused the connection (exit 69, like a model server).
        case unavailable
        case corruptVector, schemaTooNew
        /// Another process is writing the index (the advisory writer lock is taken).
        case locked
        /// The index changed under a writer in a way that makes its work invalid (re-embedded meanwhile), or a
        /// re-embed is not complete.
        case concurrentChange
    }

    /// What went wrong.
    package var code: Code
    /// The sentence shown to the user.
    package var message: String
    /// The SQL text that failed, when a statement failed; bound values are never recorded (they hold private text).
    package var sql: String?

    /// An error with no SQL attached.
    package init(code: Code, message: String) {
        self.code = code
        self.message = message
        self.sql = nil
    }

    /// An error raised while running `sql`.
    package init(code: Code, message: String, sql: String?) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The sentence plus the failing SQL, for logs and test failures.
    package var debugDescription: String {
        sql.map { "\(message) [sql: \($0)]" } ?? message
    }

    /// An unreachable database server is a missing service (exit 69), like a model server.
    package var fault: Fault { code == .unavailable ? .unavailable : .failure }
}

extension StoreError {
    /// The index file does not exist and the caller did not ask to create it.
    static func missingIndex(path: String) -> StoreError {
        StoreError(code: .missingIndex, message: "no index at \(path) — run: trove index FOLDER")
    }

    /// SQLite could not open the file (permissions, a directory, a missing parent).
    static func cannotOpen(path: String, reason: String) -> StoreError {
        StoreError(code: .cannotOpen, message: "cannot open index \(path): \(reason)")
    }

    /// The file was written by a later schema than this build knows.
    static func schemaTooNew(path: String, found: Int, known: Int) -> StoreError {
        StoreError(
            code: .schemaTooNew,
            message:
                "index \(path) was written by a newer trove (schema \(found), this one knows \(known)) — upgrade trove")
    }

    /// The file's structure is unusable; only a rebuild helps.
    static func damaged(path: String, reason: String, code: Int32, sql: String? = nil) -> StoreError {
        StoreError(
            code: .sqlite(code),
            message: "index \(path) is damaged: \(reason) — rebuild it with trove index --reembed", sql: sql)
    }

    /// A re-embed asked to finish while `unstaged` chunks of the index at `location` have no new vector yet.
    static func reembedIncomplete(_ location: String, unstaged: Int64) -> StoreError {
        StoreError(
            code: .concurrentChange,
            message: "the re-embed of \(location) is not complete: \(unstaged) "
                + (unstaged == 1 ? "chunk has" : "chunks have")
                + " no new vector yet — run trove index --reembed again to finish it")
    }

    /// A vector BLOB whose length does not match the manifest's dimension.
    static func vectorLength(chunkID: Int64, bytes: Int, dimension: Int) -> StoreError {
        StoreError(
            code: .corruptVector,
            message: "chunk \(chunkID) has a vector of \(bytes) bytes: expected \(dimension * 4) (\(dimension) floats)")
    }

    /// A vector holding NaN or ±infinity.
    static func vectorNotFinite(chunkID: Int64) -> StoreError {
        StoreError(code: .corruptVector, message: "chunk \(chunkID) has a non-finite value in its vector")
    }

    /// Maps a SQLite result code (extended) to the sentence a user can act on.
    static func sqlite(code: Int32, message: String, path: String, sql: String?) -> StoreError {
        // The primary code is the low byte of the extended one.
        switch code & 0xff {
        case SQLITE_FULL:
            // SQLite rolls the statement (and, on COMMIT, the transaction) back, so earlier batches stay intact.
            return StoreError(
                code: .sqlite(code),
                message: "the disk is full while writing \(path) — free some space and rerun; nothing was lost",
                sql: sql)
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return damaged(path: path, reason: message, code: code, sql: sql)
        case SQLITE_CANTOPEN:
            return StoreError(code: .cannotOpen, message: "cannot open index \(path): \(message)", sql: sql)
        case SQLITE_BUSY:
            return StoreError(
                code: .sqlite(code),
                message: "index \(path) is busy: another trove is writing it (\(message)) — wait for it and retry",
                sql: sql)
        case SQLITE_READONLY:
            return StoreError(
                code: .sqlite(code), message: "cannot write index \(path): \(message) — check its permissions",
                sql: sql)
        default:
            return StoreError(
                code: .sqlite(code), message: "sqlite failed on index \(path): \(message) (code \(code))", sql: sql)
        }
    }
}
