@preconcurrency import Glibc
import Dispatch
import Foundation
import Synchronization
import TroveKit
import TroveSearch
import TroveStore

extension RelevanceSuite {
    /// Fusion and BM25 variants scored in memory: each query's vector candidates are ranked once and its keyword
    /// candidates once per BM25 setting, then every variant only re-fuses those lists. The fusion code is the
    /// product's (`RankFusion`, `ScoreFusion`); `check()` confirms the in-memory path equals `Retriever`'s.
    struct Sweep {
        /// How a document's place is taken from its passages.
        enum Documents: String, CaseIterable {
            /// Fuse passages, then keep each document's best passage (what `trove search` does).
            case bestPassage = "best passage"
            /// Each list reduced to documents first (a document at its best passage's place), then fused.
            case documentsFirst = "documents first"
            /// Each list's document score is its best passage's plus half its second best's, then fused.
            case bestPlusHalfSecond = "best + ½ second"
        }

        /// One way of ranking.
        struct Variant: Hashable {
            var mode: SearchMode
            var fusion = FusionMethod.rrf
            var constant = 60.0
            var weight = 1.0
            var depth = 100
            var normalization = ScoreFusion.Normalization.minMax
            var bm25 = BM25()
            var documents = Documents.bestPassage
            /// Keyword ranking over whole documents (their statistics) instead of passages; implies documents
            /// first for the vector list.
            var documentStatistics = false
            /// Convex fusion's scale taken from each list's best this many (nil: the whole depth).
            var statisticsDepth: Int? = nil

            var label: String {
                let keyword =
                    "k1 \(bm25.k1) b \(bm25.b) h \(bm25.headingWeight)" + (documentStatistics ? ", document stats" : "")
                switch mode {
                case .vector: return "vector"
                case .keyword: return "keyword, \(keyword)"
                case .hybrid:
                    let how =
                        fusion == .rrf
                        ? "rrf c \(Int(constant))" : "convex \(normalization.rawValue)"
                    let scale = statisticsDepth.map { ", scale from top \($0)" } ?? ""
                    return "\(how), w \(weight), depth \(depth)\(scale), \(documents.rawValue), \(keyword)"
                }
            }
        }

        static let maxDepth = 400
        let sets: [OpenedSet]
        /// Set → query → the best `maxDepth` passages by cosine.
        let vector: [[[ScoredRow]]]
        /// (BM25 setting, document statistics) → set → query → the best `maxDepth` passages (or documents) by BM25.
        var keyword: [KeywordKey: [[[ScoredRow]]]] = [:]
        /// Per set, the documents' keyword table, built on first use.
        var documentTables: [DocumentKeywords?]

        struct KeywordKey: Hashable {
            var bm25: BM25
            var documentLevel: Bool
        }

        init(_ sets: [OpenedSet]) throws {
            self.sets = sets
            documentTables = Array(repeating: nil, count: sets.count)
            vector = try sets.map { set in
                let searcher = VectorSearcher(matrix: try set.retriever.loadedMatrix())
                return set.vectors.map { searcher.search(query: $0, k: Self.maxDepth) }
            }
        }

        mutating func keywordLists(_ bm25: BM25, documentLevel: Bool) throws -> [[[ScoredRow]]] {
            let key = KeywordKey(bm25: bm25, documentLevel: documentLevel)
            if let lists = keyword[key] { return lists }
            var lists: [[[ScoredRow]]] = []
            for (s, set) in sets.enumerated() {
                if documentLevel {
                    let table =
                        try documentTables[s]
                        ?? DocumentKeywords(
                            documents: set.documentPaths.enumerated().map {
                                (
                                    number: $0.offset,
                                    text: (try? String(contentsOfFile: $0.element, encoding: .utf8)) ?? ""
                                )
                            })
                    documentTables[s] = table
                    lists.append(
                        try set.set.queries.map {
                            try table.search(KeywordQuery.meaningfulText($0.text), limit: Self.maxDepth, bm25: bm25)
                        })
                } else {
                    lists.append(
                        try set.set.queries.map { query in
                            try set.retriever.store.keywordSearch(
                                KeywordQuery.meaningfulText(query.text), limit: Self.maxDepth, allowedChunkIDs: nil, bm25: bm25
                            ).map { ScoredRow(id: $0.chunkID, score: Float($0.score)) }
                        })
                }
            }
            keyword[key] = lists
            return lists
        }

        /// Per set: mean nDCG@10, Recall@10, Recall@100, MRR@10.
        mutating func evaluate(_ variant: Variant) throws -> [[Double]] {
            score(variant, keyword: try keywordLists(variant.bm25, documentLevel: variant.documentStatistics))
        }

        /// `evaluate` for many variants, on every core: the keyword lists are fetched first, then only read.
        mutating func evaluate(_ variants: [Variant]) throws -> [(Variant, [[Double]])] {
            var lists: [KeywordKey: [[[ScoredRow]]]] = [:]
            for variant in variants {
                let key = KeywordKey(bm25: variant.bm25, documentLevel: variant.documentStatistics)
                if lists[key] == nil {
                    lists[key] = try keywordLists(variant.bm25, documentLevel: variant.documentStatistics)
                }
            }
            let results = Mutex([[[Double]]](repeating: [], count: variants.count))
            let done = Atomic(0)
            let started = Date()
            let this = ReadOnly(sweep: self, lists: lists)
            DispatchQueue.concurrentPerform(iterations: variants.count) { index in
                let variant = variants[index]
                let key = KeywordKey(bm25: variant.bm25, documentLevel: variant.documentStatistics)
                let perSet = this.sweep.score(variant, keyword: this.lists[key]!)
                results.withLock { $0[index] = perSet }
                let finished = done.add(1, ordering: .relaxed).newValue
                if finished % max(1, variants.count / 10) == 0 {
                    fputs(
                        String(
                            format: "  %d of %d variants scored, %.0f s\n", finished, variants.count,
                            Date().timeIntervalSince(started)), stderr)
                }
            }
            return zip(variants, results.withLock { $0 }).map { ($0, $1) }
        }

        /// The sweep shared by the scoring threads.
        // @unchecked: while they run nothing writes to it, and `score` reads plain arrays only (no SQLite, no
        // Retriever).
        struct ReadOnly: @unchecked Sendable {
            let sweep: Sweep
            let lists: [KeywordKey: [[[ScoredRow]]]]
        }

        func score(_ variant: Variant, keyword: [[[ScoredRow]]]) -> [[Double]] {
            sets.indices.map { s in
                var sums = [0.0, 0.0, 0.0, 0.0]
                for (q, query) in sets[s].set.queries.enumerated() {
                    let relevant = sets[s].set.qrels[query.id]!
                    let top = RelevanceBenchmark.metrics(
                        ranked(s, vector[s][q], keyword[s][q], variant, depth: variant.depth), relevant: relevant)
                    // Recall@100 needs 100 candidates of each; at depth 100 or more the same ranking serves.
                    let deep =
                        variant.depth >= 100
                        ? top
                        : RelevanceBenchmark.metrics(
                            ranked(s, vector[s][q], keyword[s][q], variant, depth: 100), relevant: relevant)
                    sums[0] += top[0]
                    sums[1] += top[1]
                    sums[2] += deep[2]
                    sums[3] += top[3]
                }
                return sums.map { $0 / Double(sets[s].set.queries.count) }
            }
        }

        /// Document ids best first (at most 100).
        func ranked(_ s: Int, _ vectorRows: [ScoredRow], _ keywordRows: [ScoredRow], _ variant: Variant, depth: Int)
            -> [String]
        {
            let documentOf = sets[s].documentOf
            let names = sets[s].documentNames
            func documents(_ ids: [Int64], alreadyDocuments: Bool) -> [String] {
                var seen = Set<Int>()
                var ranked: [String] = []
                for id in ids {
                    guard let document = alreadyDocuments ? Int(id) : documentOf[id] else { continue }
                    if seen.insert(document).inserted { ranked.append(names[document]) }
                    if ranked.count == 100 { break }
                }
                return ranked
            }
            let v = Array(vectorRows.prefix(depth))
            let k = Array(keywordRows.prefix(depth))
            let keywordDocuments = variant.documentStatistics
            switch variant.mode {
            case .vector: return documents(v.map(\.id), alreadyDocuments: false)
            case .keyword: return documents(k.map(\.id), alreadyDocuments: keywordDocuments)
            case .hybrid: break
            }
            let lists =
                keywordDocuments
                ? [collapse(v, s, variant.documents), k]
                : variant.documents == .bestPassage
                    ? [v, k] : [collapse(v, s, variant.documents), collapse(k, s, variant.documents)]
            let weights = [1, variant.weight]
            let fused =
                switch variant.fusion {
                case .rrf:
                    RankFusion(constant: variant.constant, weights: weights).fuse(lists.map { $0.map(\.id) })
                case .convex:
                    ScoreFusion(
                        normalization: variant.normalization, weights: weights,
                        statisticsDepth: variant.statisticsDepth
                    ).fuse(lists)
                }
            return documents(
                fused.map(\.id), alreadyDocuments: keywordDocuments || variant.documents != .bestPassage)
        }

        /// A passage list as a document list (ids are document numbers), best first.
        func collapse(_ rows: [ScoredRow], _ s: Int, _ documents: Documents) -> [ScoredRow] {
            var best: [Int: (first: Float, second: Float?)] = [:]
            var order: [Int] = []
            for row in rows {
                guard let document = sets[s].documentOf[row.id] else { continue }
                if var entry = best[document] {
                    if entry.second == nil { entry.second = row.score }
                    best[document] = entry
                } else {
                    best[document] = (row.score, nil)
                    order.append(document)
                }
            }
            var collapsed = order.map { document -> ScoredRow in
                let entry = best[document]!
                let score =
                    documents == .bestPlusHalfSecond ? entry.first + 0.5 * (entry.second ?? 0) : entry.first
                return ScoredRow(id: Int64(document), score: score)
            }
            if documents == .bestPlusHalfSecond { collapsed.sort { $0.ranks(before: $1) } }
            return collapsed
        }

        // MARK: The sweep

        mutating func run() throws {
            try check()
            // 1. BM25 alone over k1 × b (heading weight 1), then heading weights at the best.
            var keywordResults: [(BM25, [[Double]])] = []
            for k1 in [0.9, 1.2, 1.5, 2.0] {
                for b in [0.3, 0.4, 0.5, 0.75] {
                    let bm25 = BM25(k1: k1, b: b, headingWeight: 1)
                    keywordResults.append((bm25, try evaluate(Variant(mode: .keyword, bm25: bm25))))
                }
            }
            keywordResults.sort { mean($0.1) > mean($1.1) }
            let bestKeyword = keywordResults[0].0
            for heading in [0.0, 2.0] {
                var bm25 = bestKeyword
                bm25.headingWeight = heading
                keywordResults.append((bm25, try evaluate(Variant(mode: .keyword, bm25: bm25))))
            }
            var keywordRows = keywordResults.map { (Variant(mode: .keyword, bm25: $0.0), $0.1) }
            // The same over whole documents' statistics, at SQLite's, the reference's and the best setting.
            for bm25 in [
                BM25(k1: 1.2, b: 0.75, headingWeight: 1), BM25(k1: 0.9, b: 0.4, headingWeight: 1), bestKeyword,
            ] {
                let variant = Variant(mode: .keyword, bm25: bm25, documentStatistics: true)
                keywordRows.append((variant, try evaluate(variant)))
            }
            printTable("BM25 alone (keyword mode), nDCG@10", keywordRows, reference: "BM25")

            // 2. Fusion over the BM25 settings that matter: SQLite's, the reference's, and the best alone.
            let settings = Array(
                Set([
                    BM25(k1: 1.2, b: 0.75, headingWeight: 1), BM25(k1: 0.9, b: 0.4, headingWeight: 1),
                    bestKeyword,
                ])
            ).sorted { ($0.k1, $0.b) < ($1.k1, $1.b) }
            var variants: [Variant] = []
            let started = Date()
            for bm25 in settings {
                // Scoring a document from its best and second passages only at the best BM25 setting alone.
                for documents in Documents.allCases where documents != .bestPlusHalfSecond || bm25 == bestKeyword {
                    for depth in [50, 100, 200, 400] {
                        for weight in [0.5, 0.75, 1.0, 1.5, 2.0] {
                            for constant in [5.0, 10, 20, 30, 60, 100] {
                                let variant = Variant(
                                    mode: .hybrid, fusion: .rrf, constant: constant, weight: weight, depth: depth,
                                    bm25: bm25, documents: documents)
                                variants.append(variant)
                            }
                        }
                        for normalization in ScoreFusion.Normalization.allCases {
                            for weight in [0.2, 0.3, 0.5, 0.7, 1.0, 1.5] {
                                let variant = Variant(
                                    mode: .hybrid, fusion: .convex, weight: weight, depth: depth,
                                    normalization: normalization, bm25: bm25, documents: documents)
                                variants.append(variant)
                            }
                        }
                    }
                }
            }
            // Document-level keyword statistics in fusion, over a smaller grid.
            for bm25 in settings {
                for depth in [50, 100, 200, 400] {
                    for weight in [0.5, 0.75, 1.0, 1.5] {
                        for constant in [5.0, 10, 20, 60] {
                            let variant = Variant(
                                mode: .hybrid, fusion: .rrf, constant: constant, weight: weight, depth: depth,
                                bm25: bm25, documents: .documentsFirst, documentStatistics: true)
                            variants.append(variant)
                        }
                        for normalization in ScoreFusion.Normalization.allCases {
                            let variant = Variant(
                                mode: .hybrid, fusion: .convex, weight: weight, depth: depth,
                                normalization: normalization, bm25: bm25, documents: .documentsFirst,
                                documentStatistics: true)
                            variants.append(variant)
                        }
                    }
                }
            }
            // Convex fusion with candidates deeper than the scale: each list normalised by its best 100, so that
            // the scale does not move with the depth (the guard's small corpus is whole at depth 400).
            for bm25 in settings {
                for depth in [200, 400] {
                    for normalization in ScoreFusion.Normalization.allCases {
                        for weight in [0.7, 1.0, 1.5] {
                            for documents in [Documents.bestPassage, .documentsFirst] {
                                variants.append(
                                    Variant(
                                        mode: .hybrid, fusion: .convex, weight: weight, depth: depth,
                                        normalization: normalization, bm25: bm25, documents: documents,
                                        statisticsDepth: 100))
                            }
                            variants.append(
                                Variant(
                                    mode: .hybrid, fusion: .convex, weight: weight, depth: depth,
                                    normalization: normalization, bm25: bm25, documents: .documentsFirst,
                                    documentStatistics: true, statisticsDepth: 100))
                        }
                    }
                }
            }
            let results = try evaluate(variants)
            fputs(
                String(
                    format: "%d fusion variants scored in %.0f s\n", results.count, Date().timeIntervalSince(started)),
                stderr)
            let admissible = results.filter { margin($0.1) >= 0 }.sorted { mean($0.1) > mean($1.1) }
            let scaled = results.filter { $0.0.statisticsDepth != nil }.sorted { mean($0.1) > mean($1.1) }
            printTable(
                "Convex fusion with the scale from each list's top 100, candidates deeper, best 25 by mean nDCG@10 ("
                    + "\(scaled.filter { margin($0.1) >= 0.01 }.count) of \(scaled.count) meet every set at its "
                    + "reference RRF + 0.01 with the guard)", Array(scaled.prefix(25)), reference: "RRF")
            printTable(
                "Best 25 hybrid variants by mean nDCG@10 with no set below its reference RRF and the guard at "
                    + "\(RelevanceSuite.guardFloor) or more (\(admissible.count) of "
                    + "\(results.count) qualify)", Array(admissible.prefix(25)), reference: "RRF")
            // The best of each family, so the families compare at their best.
            var families: [(Variant, [[Double]])] = []
            for (fusion, normalization) in [
                (FusionMethod.rrf, ScoreFusion.Normalization.minMax), (.convex, .minMax), (.convex, .zScore),
            ] {
                for documents in Documents.allCases {
                    for bm25 in settings {
                        let family = results.filter {
                            $0.0.fusion == fusion && (fusion == .rrf || $0.0.normalization == normalization)
                                && $0.0.documents == documents && $0.0.bm25 == bm25 && !$0.0.documentStatistics
                                && $0.0.statisticsDepth == nil
                        }
                        if let best = family.max(by: { mean($0.1) < mean($1.1) }) { families.append(best) }
                    }
                }
            }
            for (fusion, normalization) in [
                (FusionMethod.rrf, ScoreFusion.Normalization.minMax), (.convex, .minMax), (.convex, .zScore),
            ] {
                let family = results.filter {
                    $0.0.documentStatistics && $0.0.fusion == fusion
                        && (fusion == .rrf || $0.0.normalization == normalization)
                }
                if let best = family.max(by: { mean($0.1) < mean($1.1) }) { families.append(best) }
            }
            printTable("Best of each family (fusion × document scoring × BM25), nDCG@10", families, reference: "RRF")
            let fixed = [
                Variant(
                    mode: .hybrid, fusion: .rrf, constant: 10, weight: 0.5, depth: 100,
                    bm25: BM25(k1: 1.2, b: 0.75, headingWeight: 1)),
                Variant(
                    mode: .hybrid, fusion: .rrf, constant: 60, weight: 1, depth: 100,
                    bm25: BM25(k1: 1.2, b: 0.75, headingWeight: 1)),
                Variant(
                    mode: .hybrid, fusion: .rrf, constant: 60, weight: 1, depth: 100,
                    bm25: BM25(k1: 0.9, b: 0.4, headingWeight: 1)),
            ]
            printTable(
                "Fixed points: the previous default, and the reference's RRF (c 60, equal weights, top 100)",
                try fixed.map { ($0, try evaluate($0)) }, reference: "RRF")
        }

        /// Confirms the in-memory ranking equals `Retriever`'s for the current defaults (same fusion code, same
        /// candidates), so the sweep's numbers are the product's.
        mutating func check() throws {
            let defaults = SearchRequest(query: "")
            let variant = Variant(
                mode: .hybrid, fusion: defaults.fusion, constant: defaults.fusionConstant,
                weight: defaults.keywordWeight,
                depth: defaults.candidateDepth, normalization: defaults.normalization, bm25: defaults.bm25,
                documents: defaults.documentLevelFusion ? .documentsFirst : .bestPassage,
                statisticsDepth: defaults.scaleDepth)
            let swept = try evaluate(variant)
            for (s, set) in sets.enumerated() {
                let measured = try RelevanceSuite.measure(set, defaults)
                let gap = abs(measured[0] - swept[s][0])
                fputs(
                    String(
                        format: "%@: in-memory nDCG@10 %.4f, through Retriever %.4f%@\n", set.set.name, swept[s][0],
                        measured[0], gap > 1e-9 ? " (differs: grouping looked deeper)" : ""), stderr)
            }
        }

        /// Mean nDCG@10 over the public sets (not the guard).
        func mean(_ perSet: [[Double]]) -> Double {
            let scores = zip(sets, perSet).filter { !$0.0.set.isGuard }.map { $0.1[0] }
            return scores.reduce(0, +) / Double(scores.count)
        }

        /// The smallest nDCG@10 margin of any public set over its reference RRF; -1 when the guard falls below
        /// its floor.
        func margin(_ perSet: [[Double]]) -> Double {
            if zip(sets, perSet).contains(where: { $0.0.set.isGuard && $0.1[0] < RelevanceSuite.guardFloor }) {
                return -1
            }
            return zip(sets, perSet).filter { !$0.0.set.isGuard }.map { $1[0] - ($0.set.reference["RRF"] ?? 0) }
                .min() ?? 0
        }

        func printTable(_ title: String, _ rows: [(Variant, [[Double]])], reference: String) {
            print("\(title):\n")
            print(
                "| variant | " + sets.map(\.set.name).joined(separator: " | ")
                    + " | mean | min over reference \(reference) |")
            print("|---|" + String(repeating: "---:|", count: sets.count + 2))
            let references = sets.map { $0.set.reference[reference] }
            let known = references.compactMap { $0 }
            print(
                "| reference \(reference) | "
                    + references.map { $0.map { String(format: "%.4f", $0) } ?? "-" }.joined(separator: " | ")
                    + String(format: " | %.4f | - |", known.reduce(0, +) / Double(known.count)))
            for (variant, perSet) in rows {
                let worst =
                    zip(references, perSet).compactMap { reference, metrics in reference.map { metrics[0] - $0 } }
                    .min() ?? 0
                print(
                    "| \(variant.label) | " + perSet.map { String(format: "%.4f", $0[0]) }.joined(separator: " | ")
                        + String(format: " | %.4f | %+.4f |", mean(perSet), worst))
            }
            print("")
            fflush(stdout)
        }
    }
}
