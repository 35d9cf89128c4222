import Foundation
import Testing
import TroveTestSupport

@testable import TroveStore

@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("Trove's own parameters are taken out; libpq's stay")
    func parameters() throws {
        let url = try PostgresURL("postgresql://u:pw@db.example:5433/team?sslmode=require&schema=docs&hnsw=on")
        #expect(url.connection == "postgresql://u:pw@db.example:5433/team?sslmode=require")
        #expect(url.schema == "docs")
        #expect(url.hnsw == .on)
        let plain = try PostgresURL("postgres://localhost/db")
        #expect(plain.connection == "postgres://localhost/db" && plain.schema == "trove" && plain.hnsw == .auto)
    }

    @Test("A schema that is not a plain name is refused, saying what is allowed")
    func badSchema() {
        let error = #expect(throws: StoreError.self) { try PostgresURL("postgresql://h/db?schema=Team;drop") }
        #expect(
            error?.message == "schema \"Team;drop\" in postgresql://h/db?schema=Team;drop is not a plain name: use "
                + "lowercase letters, digits and _ (at most 63, not starting with a digit)")
        #expect(throws: StoreError.self) { try PostgresURL("postgresql://h/db?hnsw=maybe") }
    }

    @Test("Passwords never show", arguments: [
        ("postgresql://u:secret@h:5432/db", "postgresql://u@h:5432/db"),
        ("postgresql://u:s%40x@h/db?schema=a", "postgresql://u@h/db?schema=a"),
        ("postgresql://h/db?password=secret&sslmode=verify-full", "postgresql://h/db?sslmode=verify-full"),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
    ])
    func redacted(url: String, shown: String) {
        #expect(PostgresURL.redacted(url) == shown)
        #expect(IndexLocation(url).description == shown)
    }

    @Test("An unreachable server is one line that says so, with code unavailable")
    func unreachable() throws {
        let port = try ClosedPort()
        let error = #expect(throws: StoreError.self) {
            try PostgresStore(url: "postgresql://u:secret@127.0.0.1:\(port.port)/db", createIfMissing: true)
        }
        #expect(error?.code == .unavailable)
        let message = error?.message ?? ""
        #expect(message.hasPrefix("could not connect to postgresql://u@127.0.0.1:\(port.port)/db: "))
        #expect(message.contains("Connection refused") && message.contains("Is the server running"))
        #expect(!message.contains("secret") && !message.contains("\n"))
    }
}

@Suite("PostgreSQL store", .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
struct PostgresStoreTests {
    @Test("Opening a schema with no index, without creating, says how to make one")
    func missing() async throws {
        let url = try await PostgresServer.freshURL()
        let error = #expect(throws: StoreError.self) { try PostgresStore(url: url, createIfMissing: false) }
        #expect(error?.code == .missingIndex)
        let store = try PostgresStore(url: url, createIfMissing: true)
        #expect(store.appliedMigrations == PostgresSchema.currentVersion)
        #expect(try PostgresStore(url: url, createIfMissing: false).appliedMigrations == 0)
    }

    @Test("Writers of different folders run at once; the same folder, or a re-embed, is refused")
    func advisoryLocks() async throws {
        let url = try await PostgresServer.freshURL()
        let first = try PostgresStore(url: url, createIfMissing: true)
        let second = try PostgresStore(url: url, createIfMissing: false)
        let lock = try first.lockForWriting(roots: ["/a"])
        let other = try second.lockForWriting(roots: ["/b"])
        let error = #expect(throws: StoreError.self) { try second.lockForWriting(roots: ["/a"]) }
        #expect(error?.code == .locked)
        #expect(error?.message.hasPrefix("another trove process (PostgreSQL backend pid ") == true)
        #expect(error?.message.hasSuffix("is writing folder /a of index \(first.location) — wait for it to finish, or stop it") == true)
        #expect(throws: StoreError.self) { try second.lockForWriting(roots: []) }
        lock.release()
        other.release()
        let whole = try second.lockForWriting(roots: [])
        #expect(throws: StoreError.self) { try first.lockForWriting(roots: ["/c"]) }
        whole.release()
        try first.lockForWriting(roots: ["/a"]).release()
    }

    @Test("A search sees only committed batches, and the data version moves at commit")
    func committedOnly() async throws {
        let url = try await PostgresServer.freshURL()
        let writer = try PostgresStore(url: url, createIfMissing: true)
        try writer.writeManifest(sampleManifest())
        let reader = try PostgresStore(url: url, createIfMissing: false)
        let before = try reader.dataVersion()
        let root = try writer.rootID(forPath: "/r")
        try writer.inTransaction {
            try writer.replaceDocument(document(root, "a.md"), chunks: [chunk(0, "alpha")])
            #expect(try reader.statistics().chunks == 0)
            #expect(try reader.keywordSearch("alpha", limit: 5, allowedChunkIDs: nil, bm25: BM25()).isEmpty)
        }
        #expect(try reader.statistics().chunks == 1)
        #expect(try reader.dataVersion() > before)
    }

    @Test("With HNSW, a selective filter still returns every allowed match, and recall@10 holds unfiltered")
    func hnswFilters() async throws {
        let url = try await PostgresServer.freshURL("&hnsw=on")
        let store = try PostgresStore(url: url, createIfMissing: true)
        let dimension = 16
        try store.writeManifest(sampleManifest(dimension: dimension))
        var random = SplitMix64(seed: 18)
        func vector() -> [Float] {
            let raw = (0..<dimension).map { _ in Float.random(in: -1...1, using: &random) }
            let norm = raw.map { $0 * $0 }.reduce(0, +).squareRoot()
            return raw.map { $0 / norm }
        }
        let root = try store.rootID(forPath: "/r")
        let vectors = (0..<1500).map { _ in vector() }
        try store.inTransaction {
            for (index, vector) in vectors.enumerated() {
                try store.replaceDocument(
                    document(root, "d\(index).md"),
                    chunks: [
                        NewChunk(
                            ordinal: 0, startLine: 1, endLine: 1, heading: "", text: "t\(index)",
                            contentHash: "h\(index)", vector: vector)
                    ])
            }
        }
        try store.afterIndexing(chunksEmbedded: 1500)
        #expect(try store.hasHNSW())
        let ids = try store.chunkIDs(inDocuments: try store.searchableDocuments().map(\.id))
        var recall = 0
        for _ in 0..<10 {
            let query = vector()
            let approximate = try store.nearestChunks(to: query, limit: 10, minScore: -1, allowedChunkIDs: nil)
            // Ids ascend in insertion order, so `ids[i]` holds `vectors[i]`: the exact answer, computed here.
            let exact = ids.indices.map { ($0, zip(vectors[$0], query).map(*).reduce(0, +)) }
                .sorted { $0.1 > $1.1 }.prefix(10).map { ids[$0.0] }
            recall += Set(approximate.map(\.chunkID)).intersection(exact).count
            // Five allowed chunks out of 1500: an HNSW scan filtered afterwards would return almost none.
            let few = Array(ids.shuffled(using: &random).prefix(5))
            let filtered = try store.nearestChunks(to: query, limit: 10, minScore: -1, allowedChunkIDs: few)
            #expect(Set(filtered.map(\.chunkID)) == Set(few))
            // The same restriction as document conditions (the retriever's form: SQL, no chunk id list).
            let documents = try store.documentIDs(ofChunks: few)
            let matching = try store.nearestChunks(
                to: query, limit: 10, minScore: -1,
                matching: DocumentConditions(extensions: ["MD"], documentIDs: Set(documents.values)))
            #expect(matching == filtered)
            // Half the rows: through HNSW with ef_search raised to 400, still a full answer from the allowed rows.
            let half = Set(ids.shuffled(using: &random).prefix(750))
            let wide = try store.nearestChunks(to: query, limit: 10, minScore: -1, allowedChunkIDs: half.sorted())
            #expect(wide.count == 10 && wide.allSatisfy { half.contains($0.chunkID) })
        }
        #expect(recall >= 90, "recall@10 over 10 queries: \(recall)/100")
    }
}
