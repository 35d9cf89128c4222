import Foundation
import TroveArguments
import TroveStore
import TroveTestSupport

/// `trove-bench filters`: a filtered search on PostgreSQL two ways, side by side on one synthetic index: the filter
/// evaluated in Swift over every document and sent as an array of every allowed chunk id (the store's form before
/// filters became SQL), and the filter as document conditions in the query's `WHERE` clause (the retriever's form
/// now). Each way runs the vector and the keyword query of one search; both must return the same hits.
enum FilterBenchmark {
    static let documents = Option(
        "--documents", value: "N", .integer(min: 10), help: "synthetic documents", default: "10000")
    static let chunks = Option("--chunks", value: "C", .integer(min: 1), help: "chunks per document", default: "10")
    static let dimension = Option("--dimension", value: "D", .integer(min: 1), help: "vector dimension", default: "64")
    static let queries = Option("--queries", value: "Q", .integer(min: 1), help: "queries per row", default: "20")
    static let postgresURL = Option(
        "--postgres-url", value: "URL", help: "the server (a schema is added); default a throwaway one from "
            + "../shared/tools/postgres")

    static let spec = CommandSpec(
        name: "filters", abstract: "filtered PostgreSQL search: chunk id arrays against SQL conditions",
        usage: "trove-bench filters [options]",
        groups: [OptionGroup("Options", [documents, chunks, dimension, queries, postgresURL])])

    static func main(_ arguments: Arguments) async throws -> Int32 {
        let count = arguments.integer(Self.documents) ?? 10_000
        let perDocument = arguments.integer(Self.chunks) ?? 10
        let dimension = arguments.integer(Self.dimension) ?? 64
        let queryCount = arguments.integer(Self.queries) ?? 20
        let base: String
        if let url = arguments.value(Self.postgresURL) { base = url } else { base = try await PostgresServer.url() }
        let url = try IndexBenchmark.schemaURL(base, "bench_filters_\(getpid())")
        let opened = try IndexLocation(url).open(createIfMissing: true)
        guard let store = opened as? any IndexBackend & VectorQueryStore else {
            throw UsageError("--postgres-url must name a PostgreSQL server")
        }
        try store.writeManifest(
            IndexManifest(
                provider: .ollama, model: "bench", modelDigest: nil, dimension: dimension, chunkerVersion: 1,
                chunkerParameters: "", queryPrefix: "", documentPrefix: ""))
        var random = SplitMix64(seed: 18)
        func vector() -> [Float] {
            let raw = (0..<dimension).map { _ in Float(random.next() % 2001) / 1000 - 1 }
            let norm = raw.map { $0 * $0 }.reduce(0, +).squareRoot()
            return raw.map { $0 / norm }
        }
        let started = Date()
        let roots = [try store.rootID(forPath: "/bench/a"), try store.rootID(forPath: "/bench/b")]
        for first in stride(from: 0, to: count, by: 500) {
            try store.inTransaction {
                for number in first..<min(count, first + 500) {
                    let chunks = (0..<perDocument).map { ordinal in
                        NewChunk(
                            ordinal: ordinal, startLine: ordinal + 1, endLine: ordinal + 1, heading: "",
                            text: "note \(number) part \(ordinal) word\(number % 50) common",
                            contentHash: "h\(number)-\(ordinal)", vector: vector())
                    }
                    let kind = ["md", "txt", "rst", "org"][number % 4]
                    try store.replaceDocument(
                        NewDocument(
                            rootID: roots[number % 2], path: "d\(number % 100)/note\(number).\(kind)", size: 1,
                            modifiedNanoseconds: Int64(number), contentHash: "h\(number)"),
                        chunks: chunks)
                }
            }
        }
        try store.afterIndexing(chunksEmbedded: count * perDocument)
        let hnsw = try store.annIndexState()?.built == true
        print(
            "Filtered search on PostgreSQL, \(count) documents × \(perDocument) chunks, d \(dimension) "
                + "(written in \(Int(Date().timeIntervalSince(started))) s; HNSW \(hnsw ? "built" : "none")), "
                + "\(queryCount) queries per row, vector top 200 + keyword top 200 per query")
        print("")
        print("| filter | chunks kept | ids in Swift + arrays: p50 ms | SQL conditions: p50 ms | ratio | same hits |")
        print("|---|---:|---:|---:|---:|---|")
        let cases: [(String, DocumentConditions)] = [
            ("--ext md (25 %)", DocumentConditions(extensions: ["md"])),
            ("--ext md,txt,rst (75 %)", DocumentConditions(extensions: ["md", "txt", "rst"])),
            ("--since (newest 1 %)", DocumentConditions(modifiedSince: Int64(count - count / 100))),
            ("--root a (50 %)", DocumentConditions(rootPaths: ["/bench/a"])),
        ]
        let queryVectors = (0..<queryCount).map { _ in vector() }
        for (label, conditions) in cases {
            var arrays: [Double] = []
            var sql: [Double] = []
            var kept = 0
            var same = 0
            for (index, query) in queryVectors.enumerated() {
                let words = "word\(index % 50) common"
                var clock = Date()
                let allowed = try store.chunkIDs(
                    inDocuments: store.searchableDocuments().filter(conditions.matches).map(\.id))
                let byArray = try store.nearestChunks(to: query, limit: 200, minScore: -1, allowedChunkIDs: allowed)
                let keywordsByArray = try store.keywordSearch(
                    words, limit: 200, allowedChunkIDs: allowed, bm25: BM25())
                arrays.append(Date().timeIntervalSince(clock) * 1000)
                clock = Date()
                let bySQL = try store.nearestChunks(to: query, limit: 200, minScore: -1, matching: conditions)
                let keywordsBySQL = try store.keywordSearch(words, limit: 200, matching: conditions, bm25: BM25())
                sql.append(Date().timeIntervalSince(clock) * 1000)
                kept = allowed.count
                // Exact answers must be equal; through HNSW the two plans may differ (both approximate).
                if byArray == bySQL && keywordsByArray == keywordsBySQL { same += 1 }
            }
            let a = median(arrays)
            let s = median(sql)
            print("| \(label) | \(kept) | \(String(format: "%.1f", a)) | \(String(format: "%.1f", s)) | "
                + "\(String(format: "%.1f", a / max(s, 0.001)))× | \(same) of \(queryVectors.count) |")
        }
        return 0
    }

    private static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
