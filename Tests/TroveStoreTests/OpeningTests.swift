import Foundation
import Testing
import TroveTestSupport

@testable import TroveStore

@Suite("Opening an index")
struct OpeningTests {
    @Test("a missing index says how to create one")
    func missingIndex() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/none/index.sqlite"
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, createIfMissing: false) }
        #expect(error?.code == .missingIndex)
        #expect(error?.description == "no index at \(path) — run: trove index FOLDER")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a new index, its WAL and its new folders are private to the user")
    func privateFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/a/b/index.sqlite"
        let store = try SQLiteStore(path: path, createIfMissing: true)
        try store.writeManifest(sampleManifest())  // forces a WAL write
        #expect(FileSystem.permissions(path) == 0o600)
        #expect(FileSystem.permissions(path + "-wal") == 0o600)
        #expect(FileSystem.permissions(path + "-shm") == 0o600)
        #expect(FileSystem.permissions(directory.path + "/a") == 0o700)
        #expect(FileSystem.permissions(directory.path + "/a/b") == 0o700)
    }

    @Test("the index uses WAL, 8 KiB pages and enforces foreign keys")
    func pragmas() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        #expect(try store.database.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try store.database.scalarInt("PRAGMA page_size") == 8192)
        #expect(try store.database.scalarInt("PRAGMA foreign_keys") == 1)
        #expect(try store.database.scalarInt("PRAGMA synchronous") == 1)
        #expect(try store.database.scalarInt("PRAGMA user_version") == Int64(Schema.currentVersion))
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("reopening keeps the data and runs no migration again")
    func reopen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/index.sqlite"
        do {
            let store = try SQLiteStore(path: path, createIfMissing: true)
            #expect(store.appliedMigrations == Schema.currentVersion)
            try store.writeManifest(sampleManifest())
            let root = try store.rootID(forPath: "/notes")
            try store.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "alpha")])
        }
        let reopened = try SQLiteStore(path: path, createIfMissing: false)
        #expect(reopened.appliedMigrations == 0)
        #expect(try reopened.manifest() == sampleManifest())
        #expect(try reopened.roots() == [IndexRoot(id: 1, path: "/notes", documentCount: 1)])
        #expect(try reopened.statistics().chunks == 1)
    }

    @Test("an index from a newer trove is refused with both schema versions")
    func schemaTooNew() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/index.sqlite"
        do {
            let store = try SQLiteStore(path: path, createIfMissing: true)
            try store.database.execute("PRAGMA user_version = 99")
        }
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, createIfMissing: false) }
        #expect(error?.code == .schemaTooNew)
        #expect(
            error?.description
                == "index \(path) was written by a newer trove (schema 99, this one knows \(Schema.currentVersion))"
                + " — upgrade trove")
    }

    @Test("a file that is not an index is reported as damaged")
    func notADatabase() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("index.sqlite", String(repeating: "this is not sqlite\n", count: 400))
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, createIfMissing: false) }
        #expect(error?.code == .sqlite(ResultCode.notADatabase))
        #expect(
            error?.description
                == "index \(path) is damaged: file is not a database — rebuild it with trove index --reembed")
    }

    @Test("a folder in place of the index file cannot be opened")
    func directoryInPlace() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/index.sqlite"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, createIfMissing: false) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.description == "cannot open index \(path): unable to open database file")
    }

    @Test("a folder that cannot be created is named in the error")
    func uncreatableFolder() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("file", "not a folder")
        let path = file + "/sub/index.sqlite"
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path, createIfMissing: true) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.description == "cannot open index \(path): cannot create folder \(file)/sub: not a directory")
    }

    @Test("a full disk says nothing was lost, and earlier documents survive")
    func diskFull() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let root = try store.rootID(forPath: "/notes")
        try store.replaceDocument(document(root, "kept.md"), chunks: [chunk(0, "kept")])
        // Cap the file at its current size: the next page SQLite needs fails as if the disk were full.
        let pages = try store.database.scalarInt("PRAGMA page_count") ?? 0
        try store.database.execute("PRAGMA max_page_count = \(pages)")
        let big = (0..<50).map { chunk($0, String(repeating: "word\($0) ", count: 500)) }
        let error = #expect(throws: StoreError.self) {
            try store.inTransaction { try store.replaceDocument(document(root, "big.md"), chunks: big) }
        }
        #expect(error?.code == .sqlite(ResultCode.full))
        #expect(
            error?.description
                == "the disk is full while writing \(store.path) — free some space and rerun; nothing was lost")
        #expect(try store.documents(inRoot: root).keys.sorted() == ["kept.md"])
        #expect(try store.integrityCheck() == "ok")
    }
}
