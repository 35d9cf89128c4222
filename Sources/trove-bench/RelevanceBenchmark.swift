@preconcurrency import Glibc
import Foundation
import TroveArguments
import Ollama
import TroveKit
import TroveMiniLM
import TroveSearch
import TroveStore

/// `trove-bench relevance`: nDCG@10 and recall of vector, keyword and hybrid ranking on a labelled dataset, over a
/// grid of fusion constants and candidate depths, with each query embedded once.
enum RelevanceBenchmark {
    static let index = Option("--index", value: "PATH", .file, help: "the index of the dataset's documents (required)")
    static let dataset = Option(
        "--dataset", value: "DIR", .folder, help: "folder with queries.tsv and qrels.tsv (required)")
    static let ollama = Option(
        "--ollama", value: "URL", help: "Ollama server", default: "$OLLAMA_HOST, else http://127.0.0.1:11434")
    static let constants = Option(
        "--constants", value: "LIST", .numbers(0...1_000_000), help: "RRF constants k", default: "10,30,60,100")
    static let depths = Option(
        "--depths", value: "LIST", .integers(min: 1), help: "candidates per ranking", default: "20,50,100,200")
    static let keywordWeights = Option(
        "--keyword-weights", value: "LIST", .numbers(0...1_000), help: "weights of the keyword ranking", default: "1")
    static let suite = Option(
        "--suite", value: "DIR", .folder,
        help: "every labelled set in DIR (docs/, queries.tsv, qrels.tsv; references from DIR/README.md), instead of "
            + "--index and --dataset")
    static let indexes = Option(
        "--indexes", value: "DIR", .folder, help: "where --suite keeps one index per set", default: "Indexes")
    static let precision = Option(
        "--precision", value: "P", .choice(
            Precision.allCases.map { Option.Choice($0.rawValue, "\($0.rawValue) products (\($0.instructions))") }
                + [Option.Choice("auto", "this CPU's default")]),
        help: "with --suite: the built-in embedder's products when indexing (give each its own --indexes)",
        default: "auto")
    static let sweep = Option(
        "--sweep", help: "with --suite: BM25 and fusion variants too, scored in memory from candidates fetched once")

    static let spec = CommandSpec(
        name: "relevance", abstract: "nDCG@10 and recall of vector, keyword and hybrid ranking on a labelled set",
        usage: "trove-bench relevance --suite DIR [--indexes DIR] [--sweep] | --index PATH --dataset DIR [options]",
        discussion: """
            --suite: each set is indexed with the built-in embedder into --indexes DIR/SET.sqlite (an up-to-date index
            is reused), each query is embedded once, and one table gives vector, keyword and hybrid ranking with the
            current defaults per set and their mean, beside the references; run from the repository, the Corpora
            queries (Tests/Fixtures/corpus-queries.tsv) join as a guard outside the mean. --sweep adds BM25 and
            fusion variants (RRF, convex min-max and z-score, document scoring).

            DIR holds queries.tsv (id, text) and qrels.tsv (query id, document id, grade > 0 relevant); a result's
            document id is its file name without extension, several passages of one document count once (results are
            grouped by document). Metrics are those of ../shared/tools/ollama-standin/score.py: nDCG@10, Recall@10,
            Recall@100, MRR@10. Prints a Markdown table to stdout.
            """,
        groups: [
            OptionGroup("Suite", [suite, indexes, precision, sweep]),
            OptionGroup("One set", [index, dataset, ollama, constants, depths, keywordWeights]),
        ])

    static func main(_ arguments: Arguments) async throws -> Int32 {
        if let suite = arguments.value(Self.suite) {
            let word = arguments.value(Self.precision) ?? "auto"
            let precision = word == "auto" ? Precision.automatic : Precision(rawValue: word) ?? .fp32
            guard precision.isSupported else {
                throw UsageError("--precision \(word): this CPU lacks the instructions — use fp32")
            }
            try await RelevanceSuite.run(
                suite: suite, indexes: arguments.value(Self.indexes) ?? "Indexes", precision: precision,
                sweep: arguments.flag(Self.sweep))
            return 0
        }
        guard let index = arguments.value(Self.index), let dataset = arguments.value(Self.dataset) else {
            throw UsageError("--suite, or --index and --dataset, are required")
        }
        let ollama =
            arguments.value(Self.ollama) ?? ProcessInfo.processInfo.environment["OLLAMA_HOST"] ?? "http://127.0.0.1:11434"
        try await run(
            index: index, dataset: dataset, ollama: ollama,
            constants: arguments.numbers(Self.constants) ?? [10, 30, 60, 100],
            depths: arguments.integers(Self.depths) ?? [20, 50, 100, 200],
            weights: arguments.numbers(Self.keywordWeights) ?? [1])
        return 0
    }

    static func tsv(_ path: String) throws -> [[String]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    static func run(
        index: String, dataset: String, ollama: String, constants: [Double], depths: [Int], weights: [Double]
    ) async throws {
        var qrels: [String: [String: Int]] = [:]
        for row in try tsv(dataset + "/qrels.tsv") where row.count >= 3 {
            if let grade = Int(row[2]), grade > 0 { qrels[row[0], default: [:]][row[1]] = grade }
        }
        let queries = try tsv(dataset + "/queries.tsv").filter { $0.count >= 2 && qrels[$0[0]] != nil }
        let store = try SQLiteStore(path: index, createIfMissing: false)
        let retriever = try Retriever(store: store)
        let client = OllamaClient(baseURL: try OllamaHost.resolve(flag: ollama, environment: [:]))
        let embedder = OllamaEmbedder(client: client, model: retriever.manifest.model)
        fputs("embedding \(queries.count) queries with \(retriever.manifest.model) …\n", stderr)
        var vectors: [[Float]] = []
        for start in stride(from: 0, to: queries.count, by: 32) {
            let batch = queries[start..<min(start + 32, queries.count)].map { retriever.manifest.queryPrefix + $0[1] }
            vectors += try await embedder.embed(batch).map(VectorMath.normalized)
        }

        /// Mean nDCG@10, Recall@10, Recall@100 and MRR@10; top-10 metrics from a 10-result search (so the
        /// candidate depth is what a default search uses), Recall@100 from a 100-result one when `deep` is set.
        func evaluate(deep: Bool = true, _ make: (String, Int) -> SearchRequest) throws -> [Double?] {
            var sums = [0.0, 0.0, 0.0, 0.0]
            for (query, vector) in zip(queries, vectors) {
                func ranked(_ limit: Int) throws -> [String] {
                    let request = make(query[1], limit)
                    let hits = try retriever.search(request, queryVector: request.mode == .keyword ? nil : vector)
                    var ids: [String] = []
                    for hit in hits {
                        let name = hit.relativePath.split(separator: "/").last.map(String.init) ?? hit.relativePath
                        let id = name.split(separator: ".").first.map(String.init) ?? name
                        if !ids.contains(id) { ids.append(id) }
                    }
                    return ids
                }
                let relevant = qrels[query[0]]!
                let top = Self.metrics(try ranked(10), relevant: relevant)
                sums[0] += top[0]
                sums[1] += top[1]
                sums[3] += top[3]
                if deep { sums[2] += Self.metrics(try ranked(100), relevant: relevant)[2] }
            }
            return sums.enumerated().map { index, sum in
                index == 2 && !deep ? nil : sum / Double(queries.count)
            }
        }

        print("| mode | constant | depth | keyword weight | nDCG@10 | Recall@10 | Recall@100 | MRR@10 |")
        print("|---|---|---|---|---|---|---|---|")
        func row(_ mode: String, _ c: String, _ depth: String, _ w: String, _ m: [Double?]) {
            let cells = m.map { $0.map { String(format: "%.4f", $0) } ?? "-" }.joined(separator: " | ")
            print("| \(mode) | \(c) | \(depth) | \(w) | \(cells) |")
            fflush(stdout)
        }
        row("vector", "-", "-", "-", try evaluate { SearchRequest(query: $0, mode: .vector, limit: $1) })
        row("keyword", "-", "-", "-", try evaluate { SearchRequest(query: $0, mode: .keyword, limit: $1) })
        row(
            "vector --int8", "-", "-", "-",
            try evaluate {
                var request = SearchRequest(query: $0, mode: .vector, limit: $1)
                request.scan = .int8
                return request
            })
        // Recall@10 of int8 scanning against exact search, passage level.
        var agreed = 0
        var total = 0
        for vector in vectors {
            let matrix = try retriever.loadedMatrix()
            let exact = TroveSearch.VectorSearcher(matrix: matrix).search(query: vector, k: 10)
            let approximate = QuantizedSearcher(matrix: matrix).search(query: vector, k: 10)
            agreed += Set(exact.map(\.id)).intersection(approximate.map(\.id)).count
            total += exact.count
        }
        fputs("int8 recall@10 against exact (passages): \(Double(agreed) / Double(total))\n", stderr)
        for constant in constants {
            for depth in depths {
                for weight in weights {
                    // Recall@100 needs 100 results, so only depths of at least 100 report it.
                    let metrics = try evaluate(deep: depth >= 100) {
                        SearchRequest(
                            query: $0, mode: .hybrid, limit: $1, candidateDepth: depth, fusionConstant: constant,
                            keywordWeight: weight)
                    }
                    row("hybrid", String(Int(constant)), String(depth), String(weight), metrics)
                }
            }
        }
    }

    /// nDCG@10, Recall@10, Recall@100 and MRR@10 of one ranked list of document ids, as score.py computes them.
    static func metrics(_ ranked: [String], relevant: [String: Int]) -> [Double] {
        var dcg = 0.0
        for (i, id) in ranked.prefix(10).enumerated() { dcg += Double(relevant[id] ?? 0) / log2(Double(i + 2)) }
        let ideal = relevant.values.sorted(by: >).prefix(10).enumerated()
            .reduce(0.0) { $0 + Double($1.element) / log2(Double($1.offset + 2)) }
        let mrr = ranked.prefix(10).firstIndex { relevant[$0] != nil }.map { 1.0 / Double($0 + 1) } ?? 0
        let n = Double(relevant.count)
        let r10 = Double(Set(ranked.prefix(10)).intersection(relevant.keys).count) / n
        let r100 = Double(Set(ranked.prefix(100)).intersection(relevant.keys).count) / n
        return [ideal > 0 ? dcg / ideal : 0, r10, r100, mrr]
    }
}

