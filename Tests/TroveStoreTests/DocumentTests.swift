import Testing
import TroveTestSupport

@testable import TroveStore

@Suite("Storing documents")
struct DocumentTests {
    @Test("a new index has no manifest; a written one reads back, and rewriting replaces every key", arguments: StoreKind.available)
    func manifestRoundTrip(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try IndexLocation(try await kind.freshLocation(in: directory.path)).open(createIfMissing: true)
        #expect(try store.manifest() == nil)
        try store.writeManifest(sampleManifest(dimension: 384))
        #expect(try store.manifest() == sampleManifest(dimension: 384))
        var other = sampleManifest(dimension: 768)
        other.modelDigest = nil
        other.model = "mxbai-embed-large"
        try store.writeManifest(other)
        #expect(try store.manifest() == other)
        if let sqlite = store as? SQLiteStore {
            #expect(try count(sqlite, "SELECT count(*) FROM manifest WHERE key = 'model_digest'") == 0)
        }
    }

    @Test("roots, documents and chunks read back as written, vectors bit for bit")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, dimension: 3)
        let notes = try store.rootID(forPath: "/home/me/notes")
        #expect(try store.rootID(forPath: "/home/me/notes") == notes)
        let papers = try store.rootID(forPath: "/home/me/papers")
        #expect(papers != notes)

        let tricky: [Float] = [Float.leastNonzeroMagnitude, -0.0, Float.greatestFiniteMagnitude]
        let chunks = [
            chunk(0, "first chunk", heading: "Intro", vector: [0.1, 0.2, 0.3]),
            chunk(1, "second chunk — ünïcödé ✓", heading: "Intro › Détails", vector: tricky),
        ]
        let document = NewDocument(
            rootID: notes, path: "dir/a.md", size: 1234, modifiedNanoseconds: 1_712_345_678_123_456_789,
            contentHash: "sha256:aa")
        let id = try store.inTransaction { try store.replaceDocument(document, chunks: chunks) }
        try store.replaceDocument(
            NewDocument(rootID: papers, path: "p.txt", size: 1, modifiedNanoseconds: 2, contentHash: "x"),
            chunks: [chunk(0, "paper", dimension: 3)])

        #expect(
            try store.documents(inRoot: notes)
                == [
                    "dir/a.md": StoredDocument(
                        id: id, size: 1234, modifiedNanoseconds: 1_712_345_678_123_456_789, contentHash: "sha256:aa")
                ])
        #expect(
            try store.roots()
                == [
                    IndexRoot(id: notes, path: "/home/me/notes", documentCount: 1),
                    IndexRoot(id: papers, path: "/home/me/papers", documentCount: 1),
                ])

        let vectors = try store.loadVectors()
        #expect(vectors.dimension == 3)
        #expect(vectors.chunkIDs.count == 3)
        let stored = Array(vectors.values[3..<6])
        #expect(stored.map(\.bitPattern) == tricky.map(\.bitPattern))
        #expect(Array(vectors.values[0..<3]) == [0.1, 0.2, 0.3])

        let found = try store.chunks(ids: [vectors.chunkIDs[1], 999, vectors.chunkIDs[0]])
        #expect(found.count == 2)
        #expect(
            found[vectors.chunkIDs[1]]
                == StoredChunk(
                    id: vectors.chunkIDs[1], rootPath: "/home/me/notes", path: "dir/a.md", startLine: 11, endLine: 19,
                    heading: "Intro › Détails", text: "second chunk — ünïcödé ✓"))
        #expect(found[vectors.chunkIDs[0]]?.heading == "Intro")
        #expect(try store.chunks(ids: []) == [:])

        let statistics = try store.statistics()
        #expect(statistics.documents == 2)
        #expect(statistics.chunks == 3)
        #expect(statistics.vectors == 3)
        #expect(statistics.bytesOnDisk > 0)
    }

    @Test("replacing a document leaves no old chunks, vectors or keyword rows behind", arguments: StoreKind.available)
    func replaceLeavesNoOrphans(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.rootID(forPath: "/notes")
        let first = try store.replaceDocument(
            document(root, "a.md"), chunks: [chunk(0, "zebra stripes"), chunk(1, "zebra crossing")])
        #expect(try keywords(store, "zebra").count == 2)

        let second = try store.inTransaction {
            try store.replaceDocument(document(root, "a.md", hash: "h2"), chunks: [chunk(0, "giraffe neck")])
        }
        #expect(second != first)
        #expect(try store.documents(inRoot: root)["a.md"]?.id == second)
        #expect(try keywords(store, "zebra").isEmpty)
        #expect(try keywords(store, "giraffe").count == 1)
        #expect(try store.statistics().chunks == 1)
        #expect(try store.statistics().vectors == 1)
        #expect(try nearest(store, [1, 0, 0, 0], limit: 10).count == 1)
        if let sqlite = store as? SQLiteStore {
            #expect(try count(sqlite, "SELECT count(*) FROM chunks_fts_docsize") == 1)
        }
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("deleting a document removes its chunks, vectors and keyword rows", arguments: StoreKind.available)
    func deleteCascades(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.rootID(forPath: "/notes")
        let gone = try store.replaceDocument(document(root, "gone.md"), chunks: [chunk(0, "ephemeral words")])
        try store.replaceDocument(document(root, "kept.md"), chunks: [chunk(0, "durable words")])
        try store.deleteDocument(id: gone)

        #expect(try store.documents(inRoot: root).keys.sorted() == ["kept.md"])
        #expect(try keywords(store, "ephemeral").isEmpty)
        #expect(try keywords(store, "words").count == 1)
        #expect(
            try store.statistics()
                == IndexStatistics(
                    documents: 1, chunks: 1, vectors: 1, bytesOnDisk: try store.statistics().bytesOnDisk))
        if let sqlite = store as? SQLiteStore {
            #expect(try count(sqlite, "SELECT count(*) FROM chunks_fts_docsize") == 1)
        }
        #expect(try store.roots() == [IndexRoot(id: root, path: "/notes", documentCount: 1)])
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("a vector of the wrong dimension or with NaN is refused before anything is written", arguments: StoreKind.available)
    func refusesBadVectorsOnWrite(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.rootID(forPath: "/notes")
        let short = #expect(throws: StoreError.self) {
            try store.replaceDocument(
                document(root, "a.md"), chunks: [chunk(0, "ok"), chunk(1, "x", vector: [1, 0, 0])])
        }
        #expect(short?.code == .corruptVector)
        #expect(short?.description == "chunk 1 of a.md has a vector of 3 floats: expected 4")
        let nan = #expect(throws: StoreError.self) {
            try store.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "x", vector: [1, .nan, 0, 0])])
        }
        #expect(nan?.description == "chunk 0 of a.md has a non-finite value in its vector")
        #expect(try store.statistics().documents == 0)
    }
}
