@preconcurrency import Glibc
import Foundation
import TroveKit
import TroveMiniLM
import TroveSearch
import TroveStore

/// `trove-bench relevance --suite DIR`: every labelled set under DIR indexed with the built-in embedder (or its
/// index reused), each query embedded once, and one table of vector, keyword and hybrid ranking per set and their
/// mean, beside the sets' reference baselines. `--sweep` then scores fusion and BM25 variants in memory from
/// candidate lists fetched once per query.
enum RelevanceSuite {
    /// One labelled collection: `docs/`, `queries.tsv`, `qrels.tsv`.
    struct LabelledSet {
        var name: String
        var folder: String
        /// The documents' folder.
        var docs: String
        /// A regression guard (our own labelled Corpora queries): shown, never in the mean or the choice of
        /// defaults, which must keep its nDCG@10 at `guardFloor` or more.
        var isGuard = false
        /// Judged queries only, as (id, text).
        var queries: [(id: String, text: String)]
        /// Query id → document id → grade (> 0).
        var qrels: [String: [String: Int]]
        /// The README's reference nDCG@10: "BM25", "dense", "RRF".
        var reference: [String: Double]
    }

    /// A set opened for measuring: its index, its queries' vectors, and where each chunk belongs.
    struct OpenedSet {
        var set: LabelledSet
        var retriever: Retriever
        var vectors: [[Float]]
        /// Chunk id → dense document number (for grouping) and the document ids by number.
        var documentOf: [Int64: Int]
        var documentNames: [String]
        /// Each document's file, by number.
        var documentPaths: [String]
    }

    /// The hybrid nDCG@10 the guard set must keep.
    static let guardFloor = 0.85

    static func run(suite: String, indexes: String, precision: Precision, sweep: Bool) async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: suite).sorted()
            .filter { FileManager.default.fileExists(atPath: "\(suite)/\($0)/qrels.tsv") }
        guard !names.isEmpty else { throw BenchError("no labelled sets (folders with qrels.tsv) under \(suite)") }
        let references = referenceTable(readme: suite + "/README.md")
        var embedder = BuiltinEmbedder(folder: ModelFolder.resolve(environment: ProcessInfo.processInfo.environment))
        embedder.precision = precision
        var opened: [OpenedSet] = []
        let started = Date()
        for name in names {
            let set = try load(name: name, folder: suite + "/" + name, reference: references[name] ?? [:])
            opened.append(try await open(set, index: "\(indexes)/\(name).sqlite", embedder: embedder))
        }
        // Run from the repository, the sample folder's labelled queries join as the guard.
        if let guardSet = try loadGuard(queries: "Tests/Fixtures/corpus-queries.tsv", corpora: "Corpora") {
            opened.append(try await open(guardSet, index: "\(indexes)/corpora.sqlite", embedder: embedder))
        }
        fputs(
            String(format: "indexes ready and queries embedded in %.0f s\n", Date().timeIntervalSince(started)), stderr)
        try printDefaults(opened)
        if sweep {
            var variants = try Sweep(opened)
            try variants.run()
        }
        fputs(String(format: "suite finished in %.0f s\n", Date().timeIntervalSince(started)), stderr)
    }

    // MARK: Loading

    static func load(name: String, folder: String, reference: [String: Double]) throws -> LabelledSet {
        var qrels: [String: [String: Int]] = [:]
        for row in try RelevanceBenchmark.tsv(folder + "/qrels.tsv") where row.count >= 3 {
            if let grade = Int(row[2]), grade > 0 { qrels[row[0], default: [:]][row[1]] = grade }
        }
        let queries = try RelevanceBenchmark.tsv(folder + "/queries.tsv")
            .filter { $0.count >= 2 && qrels[$0[0]] != nil }.map { (id: $0[0], text: $0[1]) }
        return LabelledSet(
            name: name, folder: folder, docs: folder + "/docs", queries: queries, qrels: qrels, reference: reference)
    }

    /// `corpus-queries.tsv` (kind, query, expected file) over `Corpora/`, one relevant file per query; nil when
    /// either is missing (run from elsewhere than the repository).
    static func loadGuard(queries: String, corpora: String) throws -> LabelledSet? {
        guard FileManager.default.fileExists(atPath: queries), FileManager.default.fileExists(atPath: corpora) else {
            return nil
        }
        var set = LabelledSet(
            name: "corpora (guard)", folder: corpora, docs: corpora, queries: [], qrels: [:], reference: [:])
        set.isGuard = true
        for (n, row) in try RelevanceBenchmark.tsv(queries).enumerated() where row.count == 3 {
            set.queries.append((id: "q\(n)", text: row[1]))
            set.qrels["q\(n)"] = [documentID(path: row[2]): 1]
        }
        return set
    }

    /// The reference nDCG@10 per set from the datasets README's table (`| set | docs | queries | qrels | BM25 |
    /// dense | RRF |`); empty when the README has none.
    static func referenceTable(readme: String) -> [String: [String: Double]] {
        guard let text = try? String(contentsOfFile: readme, encoding: .utf8) else { return [:] }
        var table: [String: [String: Double]] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 7, let bm25 = Double(cells[4]), let dense = Double(cells[5]),
                let rrf = Double(cells[6])
            else { continue }
            table[cells[0]] = ["BM25": bm25, "dense": dense, "RRF": rrf]
        }
        return table
    }

    /// Indexes the set's documents into `index` (a no-op for an index that is up to date) and embeds its queries.
    static func open(_ set: LabelledSet, index: String, embedder: BuiltinEmbedder) async throws -> OpenedSet {
        let store = try SQLiteStore(path: index, createIfMissing: true)
        let started = Date()
        // The real path, so a suite reached through a link reuses the index instead of adding a second copy.
        let docs = URL(fileURLWithPath: set.docs).resolvingSymlinksInPath().path
        for root in try store.roots() where root.path != docs { _ = try store.forgetRoot(path: root.path) }
        let summary = try await Indexer(store: store, embedder: embedder).run(IndexOptions(roots: [docs])) { _ in }
        fputs(
            "\(set.name): \(index): \(summary.chunksEmbedded) chunks embedded in "
                + String(format: "%.0f s", Date().timeIntervalSince(started))
                + "; embedding \(set.queries.count) queries\n",
            stderr)
        let retriever = try Retriever(store: store)
        var vectors: [[Float]] = []
        for start in stride(from: 0, to: set.queries.count, by: 32) {
            let batch = set.queries[start..<min(start + 32, set.queries.count)].map {
                retriever.manifest.queryPrefix + $0.text
            }
            vectors += try await embedder.embed(batch).map(VectorMath.normalized)
        }
        let documents = try store.searchableDocuments()
        var numberOf: [Int64: Int] = [:]
        var names: [String] = []
        var paths: [String] = []
        for document in documents {
            numberOf[document.id] = names.count
            names.append(documentID(path: document.path))
            paths.append(document.rootPath + "/" + document.path)
        }
        let chunkIDs = try retriever.loadedMatrix().rowIDs
        var documentOf: [Int64: Int] = [:]
        for (chunk, document) in try store.documentIDs(ofChunks: chunkIDs) { documentOf[chunk] = numberOf[document] }
        return OpenedSet(
            set: set, retriever: retriever, vectors: vectors, documentOf: documentOf, documentNames: names,
            documentPaths: paths)
    }

    /// A result's document id: its file name without extension.
    static func documentID(path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.split(separator: ".").first.map(String.init) ?? name
    }

    // MARK: The defaults, through Retriever

    /// Mean nDCG@10, Recall@10, Recall@100, MRR@10 of `request` (its mode and parameters) through `Retriever`, the
    /// path `trove search` takes: top-10 metrics from a 10-result search, Recall@100 from a 100-result one.
    static func measure(_ opened: OpenedSet, _ template: SearchRequest) throws -> [Double] {
        var sums = [0.0, 0.0, 0.0, 0.0]
        for (query, vector) in zip(opened.set.queries, opened.vectors) {
            let relevant = opened.set.qrels[query.id]!
            func ranked(_ limit: Int) throws -> [String] {
                var request = template
                request.query = query.text
                request.limit = limit
                let hits = try opened.retriever.search(request, queryVector: request.mode == .keyword ? nil : vector)
                var seen = Set<String>()
                return hits.map { documentID(path: $0.relativePath) }.filter { seen.insert($0).inserted }
            }
            let top = RelevanceBenchmark.metrics(try ranked(10), relevant: relevant)
            sums[0] += top[0]
            sums[1] += top[1]
            sums[3] += top[3]
            sums[2] += RelevanceBenchmark.metrics(try ranked(100), relevant: relevant)[2]
        }
        return sums.map { $0 / Double(opened.set.queries.count) }
    }

    static func printDefaults(_ opened: [OpenedSet]) throws {
        let defaults = SearchRequest(query: "")
        print(
            "Defaults: \(defaults.fusion.rawValue) fusion, constant \(defaults.fusionConstant), keyword weight "
                + "\(defaults.keywordWeight), depth \(defaults.candidateDepth), scale from the best "
                + "\(defaults.scaleDepth), BM25 k1 \(defaults.bm25.k1) b \(defaults.bm25.b) heading "
                + "\(defaults.bm25.headingWeight) (keyword mode k1 \(BM25().k1) b \(BM25().b))\n")
        print("| set | mode | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | reference nDCG@10 | difference |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        let modes: [(SearchMode, String)] = [(.vector, "dense"), (.keyword, "BM25"), (.hybrid, "RRF")]
        var means = Array(repeating: [0.0, 0.0, 0.0, 0.0, 0.0], count: modes.count)
        let count = Double(opened.filter { !$0.set.isGuard }.count)
        for set in opened {
            for (row, (mode, reference)) in modes.enumerated() {
                var request = defaults
                request.mode = mode
                let metrics = try measure(set, request)
                let base = set.set.reference[reference]
                if !set.set.isGuard {
                    for i in 0..<4 { means[row][i] += metrics[i] / count }
                    means[row][4] += (base ?? .nan) / count
                }
                printRow(set.set.name, mode.rawValue, metrics, reference: base)
            }
        }
        for (row, (mode, _)) in modes.enumerated() {
            printRow("**mean of the public sets**", mode.rawValue, Array(means[row][0..<4]), reference: means[row][4])
        }
        print("")
        try printInt8(opened)
    }

    /// The int8 scan with exact rescoring against the exact scan, per set over every query: passage recall@10 and
    /// recall@200 (the depth a default search asks the vector ranking for), and nDCG@10 of vector and hybrid search
    /// through `Retriever` with the scan forced each way.
    static func printInt8(_ opened: [OpenedSet]) throws {
        print("| set | queries | passages | int8 recall@10 | int8 recall@200 | nDCG@10 vector exact / int8 "
            + "| nDCG@10 hybrid exact / int8 |")
        print("|---|---:|---:|---:|---:|---|---|")
        for set in opened {
            let matrix = try set.retriever.loadedMatrix()
            let exact = TroveSearch.VectorSearcher(matrix: matrix)
            let approximate = QuantizedSearcher(matrix: matrix)
            var recall: [Double] = []
            for k in [10, 200] {
                var agreed = 0
                var total = 0
                for vector in set.vectors {
                    let truth = exact.search(query: vector, k: k)
                    agreed += Set(truth.map(\.id)).intersection(approximate.search(query: vector, k: k).map(\.id)).count
                    total += truth.count
                }
                recall.append(Double(agreed) / Double(max(1, total)))
            }
            var ndcg: [String] = []
            for mode in [SearchMode.vector, .hybrid] {
                var cells: [String] = []
                for scan in [VectorScan.exact, .int8] {
                    var request = SearchRequest(query: "", mode: mode)
                    request.scan = scan
                    cells.append(String(format: "%.4f", try measure(set, request)[0]))
                }
                ndcg.append(cells.joined(separator: " / "))
            }
            print(
                "| \(set.set.name) | \(set.vectors.count) | \(matrix.count) | "
                    + String(format: "%.4f | %.4f", recall[0], recall[1]) + " | \(ndcg[0]) | \(ndcg[1]) |")
            fflush(stdout)
        }
        print("")
    }

    static func printRow(_ set: String, _ mode: String, _ metrics: [Double], reference: Double?) {
        let cells = metrics.map { String(format: "%.4f", $0) }.joined(separator: " | ")
        let base = reference.flatMap { $0.isNaN ? nil : $0 }
        let against = base.map { String(format: "%.4f | %+.4f", $0, metrics[0] - $0) } ?? "- | -"
        print("| \(set) | \(mode) | \(cells) | \(against) |")
        fflush(stdout)
    }
}

/// A benchmark's own failure, with what to do.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
