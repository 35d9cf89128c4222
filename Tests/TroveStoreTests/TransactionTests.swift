import Testing
import TroveTestSupport

@testable import TroveStore

/// An error a test body throws on purpose.
private struct Interrupted: Error {}

@Suite("Transactions")
struct TransactionTests {
    @Test("a batch that throws leaves nothing behind", arguments: StoreKind.available)
    func rollbackOnThrow(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.rootID(forPath: "/notes")
        #expect(throws: Interrupted.self) {
            try store.inTransaction {
                try store.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "vanishing text")])
                try store.replaceDocument(document(root, "b.md"), chunks: [chunk(0, "more")])
                throw Interrupted()
            }
        }
        #expect(try store.statistics().documents == 0)
        #expect(try store.statistics().chunks == 0)
        #expect(try store.statistics().vectors == 0)
        #expect(try keywords(store, "vanishing").isEmpty)
        #expect(try store.integrityCheck() == "ok")
        // The connection is usable again after the rollback.
        try store.inTransaction { try store.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "back")]) }
        #expect(try store.statistics().documents == 1)
    }

    @Test("a transaction returns its body's value and commits", arguments: StoreKind.available)
    func commit(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let id = try store.inTransaction { try store.rootID(forPath: "/x") }
        #expect(try store.roots().map(\.id) == [id])
        if let sqlite = store as? SQLiteStore { #expect(sqlite.database.transactionDepth == 0) }
        // Committed: another connection sees it.
        #expect(try IndexLocation(store.location).open(createIfMissing: false).roots().map(\.id) == [id])
    }

    @Test("a nested transaction that throws undoes only its own work", arguments: StoreKind.available)
    func nestedSavepoint(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.rootID(forPath: "/notes")
        try store.inTransaction {
            try store.replaceDocument(document(root, "outer.md"), chunks: [chunk(0, "outer")])
            do {
                try store.inTransaction {
                    try store.replaceDocument(document(root, "inner.md"), chunks: [chunk(0, "inner")])
                    throw Interrupted()
                }
            } catch is Interrupted {}
        }
        #expect(try store.documents(inRoot: root).keys.sorted() == ["outer.md"])
        #expect(try keywords(store, "inner").isEmpty)
    }

    @Test("a failing statement reports SQLite's message and the SQL, never the values")
    func errorCarriesSQL() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        // Root 42 does not exist: the foreign key refuses the document.
        let error = #expect(throws: StoreError.self) {
            try store.replaceDocument(document(42, "secret-name.md"), chunks: [])
        }
        #expect(error?.code == .sqlite(787))  // SQLITE_CONSTRAINT_FOREIGNKEY
        #expect(error?.description == "sqlite failed on index \(store.path): FOREIGN KEY constraint failed (code 787)")
        #expect(error?.sql?.hasPrefix("INSERT INTO documents") == true)
        #expect(error?.debugDescription.contains("secret-name") == false)
    }
}
