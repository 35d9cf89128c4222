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
    }
}
