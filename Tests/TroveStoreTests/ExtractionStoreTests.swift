import CSQLite
import Testing
import TroveTestSupport

@testable import TroveStore

@Suite("Documents that are not text: locators, reuse by content hash, remembered failures")
struct ExtractionStoreTests {
    /// A PDF-like document of two one-page chunks.
    func pdf(_ root: Int64, _ path: String, hash: String = "pdfhash") -> (NewDocument, [NewChunk]) {
        var first = chunk(0, "first page text")
        first.locator = StoredLocator(kind: "page", first: 1, last: 1, approximate: false)
        var second = chunk(1, "second page text")
        second.locator = StoredLocator(kind: "page", first: 2, last: 3, approximate: true)
        var document = document(root, path, hash: hash)
        document.extraction = StoredExtraction(
            format: "pdf", extractor: "pdftotext 22.12.0", structure: #"{"boundaries":[0,12]}"#)
        return (document, [first, second])
    }

    @Test("locators come back with hits and with the document's text", arguments: StoreKind.available)
    func locatorsRoundTrip(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.inTransaction { try store.rootID(forPath: "/papers") }
        let (report, chunks) = pdf(root, "report.pdf")
        try store.inTransaction {
            try store.replaceDocument(report, chunks: chunks)
            try store.replaceDocument(document(root, "notes.md"), chunks: [chunk(0, "plain")])
        }
        let text = try store.documentText(rootPath: "/papers", path: "report.pdf")
        #expect(text?.chunks.map(\.locator) == chunks.map(\.locator))
        let ids = try store.chunkIDs(inDocuments: try store.searchableDocuments().map(\.id))
        let stored = try store.chunks(ids: ids)
        #expect(Set(stored.values.map(\.locator)) == Set(chunks.map(\.locator) + [nil]))
    }

    @Test("a copy finds the stored document by content hash and extractor, with chunks, vectors and locators",
        arguments: StoreKind.available)
    func reuse(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.inTransaction { try store.rootID(forPath: "/papers") }
        let (report, chunks) = pdf(root, "report.pdf")
        try store.inTransaction { try store.replaceDocument(report, chunks: chunks) }
        let found = try store.reusableExtraction(contentHash: "pdfhash", format: "pdf")
        #expect(found?.extraction == report.extraction)
        #expect(found?.chunks == chunks)
        #expect(try store.reusableExtraction(contentHash: "pdfhash", format: "html") == nil)
        #expect(try store.reusableExtraction(contentHash: "other", format: "pdf") == nil)
        // A text file with the same bytes is no extraction to reuse.
        try store.inTransaction { try store.replaceDocument(document(root, "a.txt", hash: "txt"), chunks: []) }
        #expect(try store.reusableExtraction(contentHash: "txt", format: "pdf") == nil)
    }

    @Test("a failure is remembered by content hash and extractor, and forgotten once the content is read",
        arguments: StoreKind.available)
    func failures(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let encrypted = StoredExtractionFailure(kind: "encrypted", detail: "a password is needed")
        try store.inTransaction {
            try store.recordExtractionFailure(contentHash: "pdfhash", extractor: "pdf", failure: encrypted)
        }
        #expect(try store.extractionFailure(contentHash: "pdfhash", extractor: "pdf") == encrypted)
        #expect(try store.extractionFailure(contentHash: "pdfhash", extractor: "pdf 2") == nil)
        let timeout = StoredExtractionFailure(kind: "timeout", detail: "after 30 s")
        try store.recordExtractionFailure(contentHash: "pdfhash", extractor: "pdf", failure: timeout)
        #expect(try store.extractionFailure(contentHash: "pdfhash", extractor: "pdf") == timeout)
        let root = try store.inTransaction { try store.rootID(forPath: "/papers") }
        let (report, chunks) = pdf(root, "report.pdf")
        try store.inTransaction { try store.replaceDocument(report, chunks: chunks) }
        #expect(try store.extractionFailure(contentHash: "pdfhash", extractor: "pdf") == nil)
    }
}

@Suite("Schema migration 4: documents that are not text")
struct ExtractionMigrationTests {
    @Test("an index of schema 3 opens with its documents as text files, and takes extracted ones")
    func migratesExistingIndex() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/old.sqlite"
        do {
            let database = try Database(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            try database.execute(Schema.migrations[0...2].joined() + "PRAGMA user_version = 3;")
            try database.execute(
                """
                INSERT INTO roots (id, path, added_at) VALUES (1, '/notes', 0);
                INSERT INTO documents (id, root_id, path, size, mtime_ns, content_hash, indexed_at)
                    VALUES (1, 1, 'memo.md', 10, 0, 'h', 0);
                INSERT INTO chunks (id, document_id, ordinal, start_line, end_line, heading, text, content_hash)
                    VALUES (7, 1, 0, 1, 1, '', 'an old memo', 'c');
                """)
        }
        let store = try SQLiteStore(path: path, createIfMissing: false)
        #expect(store.appliedMigrations == 1)
        #expect(try store.chunks(ids: [7])[7]?.locator == nil)
        #expect(try store.documentText(rootPath: "/notes", path: "memo.md")?.chunks.map(\.text) == ["an old memo"])
        #expect(try store.integrityCheck() == "ok")
    }
}
