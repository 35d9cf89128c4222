import Foundation
import Testing
import TroveTestSupport

@testable import TroveStore

/// A new index of `kind` with a manifest written: a SQLite file in `directory`, or a fresh schema on the test
/// PostgreSQL server.
func makeBackend(_ kind: StoreKind, in directory: TemporaryDirectory, dimension: Int = 4, options: String = "")
    async throws -> any IndexBackend
{
    let store = try IndexLocation(
        try await kind.freshLocation(in: directory.path, options: options)).open(createIfMissing: true)
    try store.writeManifest(sampleManifest(dimension: dimension))
    return store
}

/// The vector ranking of either store, so one test checks both: the SQLite snapshot ranked naively here, or the
/// PostgreSQL store's own query.
func nearest(_ store: any IndexBackend, _ query: [Float], limit: Int, allowed: [Int64]? = nil) throws -> [Int64] {
    if let queries = store as? any VectorQueryStore {
        return try queries.nearestChunks(to: query, limit: limit, minScore: -1, allowedChunkIDs: allowed).map(\.chunkID)
    }
    let vectors = try (store as! any VectorSnapshotStore).loadVectorsCached()
    let values = vectors.values
    let scored = vectors.chunkIDs.enumerated().compactMap { row, id -> (Int64, Float)? in
        if let allowed, !allowed.contains(id) { return nil }
        let score = zip(values[row * vectors.dimension..<(row + 1) * vectors.dimension], query).map(*).reduce(0, +)
        return (id, score)
    }
    return scored.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.prefix(limit).map(\.0)
}

@Suite("Both stores behind one protocol")
struct BackendTests {
    @Test(
        "PostgreSQL server for the store tests",
        .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
    func serverStarts() async throws {
        let url = try await PostgresServer.url()
        #expect(url.hasPrefix("postgresql://postgres@127.0.0.1:"))
    }

    @Test("A document is replaced whole, roots count it, and deleting it removes its chunks", arguments: StoreKind.available)
    func replaceAndDelete(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.inTransaction { try store.rootID(forPath: "/notes") }
        #expect(try store.inTransaction { try store.rootID(forPath: "/notes") } == root)
        try store.inTransaction {
            try store.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "alpha"), chunk(1, "beta")])
            try store.replaceDocument(document(root, "b.md"), chunks: [chunk(0, "gamma")])
        }
        try store.inTransaction {
            try store.replaceDocument(document(root, "a.md", hash: "h2"), chunks: [chunk(0, "alpha again")])
        }
        #expect(try store.roots() == [IndexRoot(id: root, path: "/notes", documentCount: 2)])
        let documents = try store.documents(inRoot: root)
        #expect(documents["a.md"]?.contentHash == "h2")
        #expect(try store.statistics().chunks == 2)
        #expect(try store.halfWrittenDocuments().isEmpty)
        #expect(try store.integrityCheck() == "ok")
        try store.inTransaction { try store.deleteDocument(id: documents["b.md"]!.id) }
        let rows = try store.contentRows()
        #expect(rows.map(\.text) == ["alpha again"])
        #expect(rows[0].vector == VectorBlob.withBytes(of: [1, 0, 0, 0] as [Float]) { Array($0) })
        let text = try store.documentText(rootPath: "/notes", path: "a.md")
        #expect(text?.chunks.map(\.text) == ["alpha again"])
        #expect(try store.documentText(rootPath: "/notes", path: "b.md") == nil)
    }

    @Test("A failing transaction writes nothing, and a bad vector is refused before any row", arguments: StoreKind.available)
    func rollback(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.inTransaction { try store.rootID(forPath: "/r") }
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.inTransaction {
                try store.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "alpha")])
                throw Stop()
            }
        }
        let error = #expect(throws: StoreError.self) {
            try store.inTransaction {
                try store.replaceDocument(document(root, "b.md"), chunks: [chunk(0, "x", vector: [1, 2, 3])])
            }
        }
        #expect(error?.message == "chunk 0 of b.md has a vector of 3 floats: expected 4")
        #expect(try store.statistics().documents == 0)
        #expect(try !store.hasVectors())
    }

    @Test("Vectors are reused by content hash and ranked with the filter before top-k", arguments: StoreKind.available)
    func vectorsAndFilters(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.inTransaction { try store.rootID(forPath: "/r") }
        try store.inTransaction {
            for index in 0..<12 {
                let angle = Float(index) * 0.1
                try store.replaceDocument(
                    document(root, "d\(index).md"),
                    chunks: [chunk(0, "text \(index)", vector: [cos(angle), sin(angle), 0, 0])])
            }
        }
        let reused = try store.vectors(forContentHashes: ["hash-0-6", "missing"])
        #expect(reused.keys.sorted() == ["hash-0-6"])
        #expect(reused["hash-0-6"]?.count == 4)
        let ids = try store.chunkIDs(inDocuments: try store.searchableDocuments().map(\.id))
        #expect(ids.count == 12)
        #expect(try nearest(store, [1, 0, 0, 0], limit: 3) == Array(ids.prefix(3)))
        // Only the farthest three allowed: they come back, not an empty list from the nearest three filtered.
        let far = Array(ids.suffix(3))
        #expect(try nearest(store, [1, 0, 0, 0], limit: 3, allowed: far) == far)
        #expect(try store.documentIDs(ofChunks: far).count == 3)
    }

    @Test("Keyword search finds stems, ranks, and keeps to the allowed chunks", arguments: StoreKind.available)
    func keywords(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.inTransaction { try store.rootID(forPath: "/r") }
        try store.inTransaction {
            try store.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "the indexing of backups")])
            try store.replaceDocument(document(root, "b.md"), chunks: [chunk(0, "bicycles and chains")])
            try store.replaceDocument(document(root, "c.md"), chunks: [chunk(0, "backup backup restore")])
        }
        let hits = try store.keywordSearch("backup index", limit: 10, allowedChunkIDs: nil, bm25: BM25())
        let chunks = try store.chunks(ids: hits.map(\.chunkID))
        #expect(Set(hits.map { chunks[$0.chunkID]!.path }) == ["a.md", "c.md"])
        #expect(hits.allSatisfy { $0.score > 0 })
        let only = try store.keywordSearch(
            "backup", limit: 10, allowedChunkIDs: [hits.map(\.chunkID).max()!], bm25: BM25())
        #expect(only.count == 1)
        // Quotes, operators and stop words only are plain text, never a syntax error.
        for query in ["\"", "a & b | !c", "(((", "the and of", "'; DROP TABLE chunks; --"] {
            _ = try store.keywordSearch(query, limit: 5, allowedChunkIDs: nil, bm25: BM25())
        }
        #expect(try store.statistics().chunks == 3)
    }

    @Test("A re-embed stages vectors, swaps them in at once and bumps the generation", arguments: StoreKind.available)
    func reembed(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.inTransaction { try store.rootID(forPath: "/r") }
        try store.inTransaction {
            try store.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "alpha"), chunk(1, "beta")])
        }
        #expect(try store.vectorGeneration() == 0)
        try store.beginReembedding(fresh: true)
        try store.inTransaction { try store.setReembedState("target", "m2") }
        let pending = try store.chunksToReembed(afterID: 0, limit: 10)
        #expect(pending.map(\.text) == ["alpha", "beta"])
        try store.inTransaction { try store.stageVectors([(pending[0].id, [0, 0, 1, 0, 0, 0])]) }
        #expect(throws: StoreError.self) { try store.finishReembedding(manifest: sampleManifest(dimension: 6)) }
        try store.inTransaction { try store.stageVectors([(pending[1].id, [0, 0, 0, 1, 0, 0])]) }
        #expect(try store.reembedState("target") == "m2")
        try store.finishReembedding(manifest: sampleManifest(dimension: 6))
        #expect(try store.vectorGeneration() == 1)
        #expect(try store.manifest()?.dimension == 6)
        #expect(try store.reembedState("target") == nil)
        #expect(throws: StoreError.self) { try store.inTransaction { try store.checkGeneration(0) } }
        #expect(try nearest(store, [0, 0, 0, 1, 0, 0], limit: 1) == [pending[1].id])
    }

    @Test("Forgetting a root removes everything under it; conversations persist", arguments: StoreKind.available)
    func forgetAndChat(kind: StoreKind) async throws {
        let directory = try TemporaryDirectory()
        let store = try await makeBackend(kind, in: directory)
        let root = try store.inTransaction { try store.rootID(forPath: "/r") }
        try store.inTransaction {
            try store.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "alpha"), chunk(1, "beta")])
        }
        #expect(try store.forgetRoot(path: "/missing") == nil)
        let forgotten = try store.forgetRoot(path: "/r")
        #expect(forgotten?.documents == 1 && forgotten?.chunks == 2)
        #expect(try store.statistics().vectors == 0)
        let session = try store.chatSession(named: "s", chatModel: "m")
        #expect(try store.chatSession(named: "s", chatModel: "other").id == session.id)
        try store.appendChatMessages(
            sessionID: session.id, [ChatMessageRecord(role: .user, content: "q"), ChatMessageRecord(role: .assistant, content: "a", interrupted: true)])
        #expect(try store.chatMessages(sessionID: session.id).map(\.interrupted) == [false, true])
        try store.replaceChatMessages(sessionID: session.id, with: [ChatMessageRecord(role: .assistant, content: "s")])
        #expect(try store.chatMessages(sessionID: session.id).map(\.role) == [.assistant])
        try store.vacuum()
    }
}
