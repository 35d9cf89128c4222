import Foundation
import Ollama
import Testing
import TroveKit
import TroveTestSupport

@testable import TroveStore

/// The facade over both stores: the same indexer and retriever code, a SQLite file or a PostgreSQL schema below.
@Suite("TroveIndex on SQLite and on PostgreSQL")
struct StoreParityTests {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory

    init() throws {
        // A second model of another dimension, for the re-embed.
        server = try FakeOllamaServer(models: [.embedding("nomic-embed-text"), .embedding("all-minilm", dimension: 32)])
        folder = try TemporaryDirectory()
    }

    private var corpora: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/Corpora"
    }

    private func configuration(_ location: String) -> TroveConfiguration {
        TroveConfiguration(location: IndexLocation(location), ollama: OllamaClient(baseURL: server.baseURL), modelFolder: "/none")
    }

    @discardableResult
    private func run(_ index: TroveIndex, _ options: IndexOptions) async throws -> IndexSummary {
        var summary: IndexSummary?
        for try await progress in try await index.index(options) {
            if case .finished(let done) = progress { summary = done }
        }
        return try #require(summary)
    }

    @Test(
        "PostgreSQL server for the facade tests",
        .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
    func serverStarts() async throws {
        _ = try await PostgresServer.url()
    }

    @Test("Index, search with filters, text, status, forget and vacuum work alike", arguments: StoreKind.available)
    func everyOperation(kind: StoreKind) async throws {
        let location = try await kind.freshLocation(in: folder.path)
        let index = try TroveIndex(creating: configuration(location), embedder: EmbedderChoice(provider: .ollama))
        let summary = try await run(index, IndexOptions(roots: [corpora]))
        #expect(summary.newDocuments == 38)
        let status = try await index.status()
        #expect(status.documents == 38 && status.chunks == summary.chunksEmbedded)
        let keyword = try await index.search(SearchRequest(query: "stripe secret key rotate", mode: .keyword, limit: 1))
        #expect(keyword.first?.relativePath == "engineering/deploy.md")
        let filtered = try await index.search(
            SearchRequest(query: "backups", limit: 5, filter: SearchFilter(pathGlobs: ["howto/**"])))
        #expect(!filtered.isEmpty && filtered.allSatisfy { $0.relativePath.hasPrefix("howto/") })
        let text = try await index.text(path: corpora + "/engineering/deploy.md")
        #expect(!text.lines.isEmpty)
        // A second pass finds nothing to do.
        let again = try await run(index, IndexOptions(roots: [corpora]))
        #expect(again.unchangedDocuments == 38 && again.chunksEmbedded == 0)
        let forgotten = try await index.forget(folder: corpora)
        #expect(forgotten?.documents == 38)
        _ = try await index.vacuum()
        #expect(try await index.status().chunks == 0)
    }

    @Test(
        "The two stores hold the same contents and rank vectors identically",
        .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
    func sameResults() async throws {
        var hits: [[SearchHit]] = []
        var contents: [[ContentRow]] = []
        for kind in StoreKind.allCases {
            let location = try await kind.freshLocation(in: folder.path)
            let index = try TroveIndex(creating: configuration(location), embedder: EmbedderChoice(provider: .ollama))
            try await run(index, IndexOptions(roots: [corpora]))
            hits.append(try await index.search(SearchRequest(query: "rotate the deploy key", mode: .vector, limit: 8)))
            contents.append(try IndexLocation(location).open(createIfMissing: false).contentRows())
            // Hybrid fusion runs the same code on both; each ranking is its store's own.
            #expect(try await !index.search(SearchRequest(query: "rotate the deploy key", limit: 5)).isEmpty)
        }
        #expect(contents[0] == contents[1])
        // BLAS and pgvector round differently, so passages within 1e-6 of each other may swap places.
        #expect(Set(hits[0].map(\.relativePath)) == Set(hits[1].map(\.relativePath)))
        for (a, b) in zip(hits[0], hits[1]) { #expect(abs(a.score - b.score) < 1e-5) }
    }

    @Test(
        "Filters (extensions, dates, roots, globs) give the same hits on both stores; PostgreSQL's SQL equals Swift's rule",
        .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
    func filtersAlike() async throws {
        // Names on the edges of the extension rule, with mtimes a day apart, beside Corpora as a second root.
        let odd = try TemporaryDirectory()
        let files = [
            "A.MD", "b.md", "c.txt", "dir.md/plain", "x.tar.gz", "noext", "ünï.Md", "trailing.", "Ärger.TXT",
            "deep/er/notes.md",
        ]
        for (number, name) in files.enumerated() {
            let path = try odd.write("edges/" + name, "# \(name)\n\nthe heron note number \(number)\n")
            let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 86_400)
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
        }
        let edges = odd.path + "/edges"
        let day: Int64 = 86_400 * 1_000_000_000
        let start: Int64 = 1_700_000_000 * 1_000_000_000
        let filters = [
            SearchFilter(extensions: ["md"]), SearchFilter(extensions: [".TXT", "gz"]),
            SearchFilter(extensions: ["tar.gz"]), SearchFilter(extensions: [""]),
            SearchFilter(modifiedSince: start + 3 * day), SearchFilter(modifiedBefore: start + 2 * day),
            SearchFilter(modifiedSince: start + day, modifiedBefore: start + 4 * day), SearchFilter(roots: ["edges"]),
            SearchFilter(roots: [corpora]), SearchFilter(pathGlobs: ["*.md"]), SearchFilter(pathGlobs: ["howto/**"]),
            SearchFilter(pathGlobs: ["dir.md", "er"]), SearchFilter(pathGlobs: ["?rger.*"]),
            SearchFilter(pathGlobs: ["*.md"], extensions: ["md"], roots: ["edges"]),
            SearchFilter(pathGlobs: ["nothing-matches"]),
        ]
        var results: [[[String]]] = []
        for kind in StoreKind.allCases {
            let location = try await kind.freshLocation(in: folder.path)
            let index = try TroveIndex(creating: configuration(location), embedder: EmbedderChoice(provider: .ollama))
            try await run(index, IndexOptions(roots: [corpora, edges]))
            let everything = try await index.search(
                SearchRequest(query: "heron note", mode: .keyword, limit: 10_000, groupByDocument: false))
            let all = try IndexLocation(location).open(createIfMissing: false).searchableDocuments()
            var perFilter: [[String]] = []
            for filter in filters {
                // Every allowed passage (a limit past the index's size): the exact set the filter allows.
                let vector = try await index.search(
                    SearchRequest(query: "heron note", mode: .vector, limit: 10_000, filter: filter, groupByDocument: false))
                let allowed = Set(all.filter(filter.matches).map { $0.rootPath + "/" + $0.path })
                #expect(Set(vector.map(\.path)) == allowed, "\(kind) \(filter)")
                // Keywords: the filtered ranking is the unfiltered one with the disallowed documents taken out.
                let keyword = try await index.search(
                    SearchRequest(query: "heron note", mode: .keyword, limit: 10_000, filter: filter, groupByDocument: false))
                #expect(keyword.map(\.chunkID) == everything.filter { allowed.contains($0.path) }.map(\.chunkID), "\(kind) \(filter)")
                let hybrid = try await index.search(SearchRequest(query: "heron note", limit: 3, filter: filter))
                #expect(hybrid.allSatisfy { allowed.contains($0.path) }, "\(kind) \(filter)")
                #expect(try await index.anyDocumentMatches(filter) == !allowed.isEmpty, "\(kind) \(filter)")
                perFilter.append(vector.map(\.path).sorted())
            }
            results.append(perFilter)
        }
        #expect(results[0] == results[1])
    }

    @Test(
        "Two indexers of different folders write one PostgreSQL index at once; a third on the same folder is refused",
        .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
    func concurrentWriters() async throws {
        let location = try await PostgresServer.freshURL()
        let engineering = corpora + "/engineering"
        let howto = corpora + "/howto"
        let first = try TroveIndex(creating: configuration(location), embedder: EmbedderChoice(provider: .ollama))
        let second = try TroveIndex(creating: configuration(location), embedder: EmbedderChoice(provider: .ollama))
        // Small batches, so the two runs' transactions interleave.
        async let a = run(first, IndexOptions(roots: [engineering], batchSize: 4, maxDocumentsPerTransaction: 2))
        async let b = run(second, IndexOptions(roots: [howto], batchSize: 4, maxDocumentsPerTransaction: 2))
        let (one, two) = try await (a, b)
        let store = try IndexLocation(location).open(createIfMissing: false)
        #expect(try store.roots().map(\.documentCount) == [one.newDocuments, two.newDocuments])
        #expect(try store.halfWrittenDocuments().isEmpty)
        #expect(try store.statistics().chunks == one.chunksEmbedded + one.chunksReused + two.chunksEmbedded + two.chunksReused)
        // The same folder while a writer holds it.
        let lock = try store.lockForWriting(roots: [TroveIndex.folderPath(howto)])
        defer { lock.release() }
        let error = await #expect(throws: StoreError.self) { try await run(second, IndexOptions(roots: [howto])) }
        #expect(error?.code == .locked)
        try await run(first, IndexOptions(roots: [engineering]))
    }

    @Test(
        "A re-embed on PostgreSQL swaps every vector and searches follow the new model",
        .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
    func reembed() async throws {
        let location = try await PostgresServer.freshURL()
        let index = try TroveIndex(creating: configuration(location), embedder: EmbedderChoice(provider: .ollama))
        let notes = corpora + "/howto"
        try await run(index, IndexOptions(roots: [notes]))
        let other = try TroveIndex(
            creating: configuration(location), embedder: EmbedderChoice(provider: .ollama, model: "all-minilm"))
        let summary = try await run(other, IndexOptions(roots: [], reembed: true))
        #expect(summary.chunksReembedded > 0)
        #expect(try await index.embeddingModel() == "all-minilm")
        let store = try IndexLocation(location).open(createIfMissing: false)
        #expect(try store.vectorGeneration() == 1)
        #expect(try store.statistics().vectors == store.statistics().chunks)
        #expect(try await !index.search(SearchRequest(query: "git", mode: .vector, limit: 3)).isEmpty)
    }
}
