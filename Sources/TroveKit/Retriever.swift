import TroveBLAS
import TroveSearch
import TroveStore

/// One passage found by a search.
public struct SearchHit: Sendable, Equatable, Codable {
    /// 1-based position in the results.
    public var rank: Int
    public var chunkID: Int64
    /// The document the passage belongs to.
    public var documentID: Int64 = 0
    /// The indexed folder the document belongs to.
    public var rootPath: String
    /// The document's path relative to `rootPath`.
    public var relativePath: String
    public var startLine: Int
    public var endLine: Int
    /// Heading path, e.g. `Deploy › Keys`; empty when the passage has none.
    public var heading: String
    /// The score the results are ordered by: the fused score (0…1) in hybrid mode, cosine similarity in vector
    /// mode, BM25 in keyword mode. Higher is better.
    public var score: Float
    public var text: String
    /// Cosine similarity with the query (nil in keyword mode).
    public var vectorScore: Float? = nil
    /// Rank among the vector candidates (nil when the passage was not among them).
    public var vectorRank: Int? = nil
    /// BM25 relevance, higher is better. In hybrid mode every hit has one (0 when no query word occurs in it);
    /// in vector mode nil.
    public var keywordScore: Double? = nil
    /// Rank among the keyword candidates.
    public var keywordRank: Int? = nil
    /// The fused score (hybrid mode only): Reciprocal Rank Fusion 0…1, or the convex combination of normalised
    /// scores.
    public var fusedScore: Double? = nil

    public init(
        rank: Int, chunkID: Int64, rootPath: String, relativePath: String, startLine: Int, endLine: Int,
        heading: String, score: Float, text: String
    ) {
        self.rank = rank
        self.chunkID = chunkID
        self.rootPath = rootPath
        self.relativePath = relativePath
        self.startLine = startLine
        self.endLine = endLine
        self.heading = heading
        self.score = score
        self.text = text
    }

    /// The document's absolute path.
    public var path: String { rootPath.hasSuffix("/") ? rootPath + relativePath : rootPath + "/" + relativePath }
}

/// How hybrid search combines the vector and keyword rankings.
public enum FusionMethod: String, Sendable, CaseIterable, Codable {
    /// Reciprocal Rank Fusion: by rank alone, `Σ wᵢ / (c + rankᵢ)`.
    case rrf
    /// A convex combination of the normalised scores, `(normᵥ + w·normₖ) / (1 + w)`.
    case convex
}

/// How passages are ranked.
public enum SearchMode: String, Sendable, CaseIterable, Codable {
    /// Vector and keyword rankings fused (`SearchRequest.fusion`).
    case hybrid
    /// Cosine similarity of embeddings only.
    case vector
    /// SQLite FTS5 BM25 only; needs no embedding model.
    case keyword
}

/// What to search for and how.
public struct SearchRequest: Sendable, Equatable, Codable {
    public var query: String
    public var mode: SearchMode
    /// How many results (documents, or passages with `groupByDocument` off).
    public var limit: Int
    /// Passages with a cosine similarity below this are left out (vector and hybrid modes).
    public var minScore: Float?
    /// Which documents may be returned; applied before ranking.
    public var filter: SearchFilter
    /// One result per document (its best passage) instead of every passage.
    public var groupByDocument: Bool
    /// Candidates taken from each ranking before fusion (at least `limit`).
    public var candidateDepth: Int
    /// How the two rankings are fused in hybrid mode.
    public var fusion = SearchRequest.defaultFusion
    /// The RRF constant (`fusion` rrf).
    public var fusionConstant: Double
    /// The keyword ranking's weight in the fusion; the vector ranking's is 1.
    public var keywordWeight: Double
    /// How scores are normalised before a convex combination (`fusion` convex).
    public var normalization = SearchRequest.defaultNormalization
    /// Convex fusion takes each ranking's scale (min and max, or mean and deviation) from its best this many
    /// candidates, however deep `candidateDepth` goes, so a deeper list adds candidates without moving the scale.
    public var scaleDepth = SearchRequest.defaultScaleDepth
    /// BM25's parameters as set; nil: the mode's default (`bm25`).
    public var chosenBM25: BM25? = nil
    /// BM25's parameters for the keyword ranking in force: the ones set, or the mode's default — keyword mode
    /// `BM25()` (best alone), hybrid `defaultHybridBM25` (best fused); each chosen on the suite's mean.
    public var bm25: BM25 {
        get { chosenBM25 ?? (mode == .hybrid ? SearchRequest.defaultHybridBM25 : BM25()) }
        set { chosenBM25 = newValue }
    }
    /// With `groupByDocument`, hybrid mode fuses documents: each ranking is first reduced to documents (a
    /// document at its best passage's place, with that passage's score), so a document's passages do not compete
    /// for its place. Off, passages are fused and each document keeps its best fused passage.
    public var documentLevelFusion = SearchRequest.defaultDocumentLevelFusion
    /// Scan an int8 copy of the matrix and rescore its best candidates exactly (opt-in; exact by default).
    public var quantized = false

    /// A request; defaults are the measured ones (see BENCHMARKS.md).
    public init(
        query: String, mode: SearchMode = .hybrid, limit: Int = 10, minScore: Float? = nil,
        filter: SearchFilter = SearchFilter(), groupByDocument: Bool = true,
        candidateDepth: Int = SearchRequest.defaultCandidateDepth,
        fusionConstant: Double = SearchRequest.defaultFusionConstant,
        keywordWeight: Double = SearchRequest.defaultKeywordWeight
    ) {
        self.query = query
        self.mode = mode
        self.limit = limit
        self.minScore = minScore
        self.filter = filter
        self.groupByDocument = groupByDocument
        self.candidateDepth = candidateDepth
        self.fusionConstant = fusionConstant
        self.keywordWeight = keywordWeight
    }

    /// Chosen by the mean nDCG@10 over the four public sets, `trove-bench relevance --suite --sweep`, with no set
    /// below its reference RRF and the Corpora queries' nDCG@10 at 0.85 or more (BENCHMARKS.md).
    public static let defaultCandidateDepth = 200
    /// Convex z-score fusion was the best admissible family; every RRF variant dropped the Corpora guard to ≤ 0.68.
    public static let defaultFusion = FusionMethod.convex
    /// Used with `--fusion rrf` only: the literature's (and the reference baseline's) constant, not tuned.
    public static let defaultFusionConstant = 60.0
    /// Chosen with the fusion (BENCHMARKS.md).
    public static let defaultKeywordWeight = 1.0
    /// Chosen with the depth: each ranking's scale from its best 100 (the depth the z-score fusion was first
    /// chosen at) while candidates come from 200, so a document deep in one ranking gets its own low score, not the
    /// ranking's floor; the Corpora guard, whose 276 passages a deeper scale would cover whole, stays at 0.8531.
    public static let defaultScaleDepth = 100
    /// BM25 in hybrid mode, chosen with the fusion: the reference's k1 0.9, b 0.4 (Anserini's) fused best; alone,
    /// keyword mode keeps `BM25()` (k1 1.2, b 0.5), which ranks best by itself (BENCHMARKS.md).
    public static let defaultHybridBM25 = BM25(k1: 0.9, b: 0.4, headingWeight: BM25.defaultHeadingWeight)
    /// Chosen with the fusion: z-score kept the Corpora guard at 0.85, min-max dropped it to 0.68 (BENCHMARKS.md).
    public static let defaultNormalization = ScoreFusion.Normalization.zScore
    /// Measured, not chosen: reducing each ranking to documents first did not beat the best passage
    /// (BENCHMARKS.md).
    public static let defaultDocumentLevelFusion = false

    /// Throws a `SearchRequestError` naming the first parameter out of range; a request from outside (a CLI flag, a
    /// socket line) must never reach a precondition.
    public func validate() throws {
        func finite(_ value: Double, _ name: String, _ range: ClosedRange<Double>) throws {
            guard value.isFinite, range.contains(value) else {
                let upper = range.upperBound.isFinite ? "…\(range.upperBound.plainText)" : " or more"
                throw SearchRequestError("\(name) must be \(range.lowerBound.plainText)\(upper), got \(value)")
            }
        }
        guard limit >= 0 else { throw SearchRequestError("limit must be 0 or more, got \(limit)") }
        guard candidateDepth >= 1 else {
            throw SearchRequestError("candidate depth must be 1 or more, got \(candidateDepth)")
        }
        guard scaleDepth >= 1 else { throw SearchRequestError("scale depth must be 1 or more, got \(scaleDepth)") }
        try finite(fusionConstant, "fusion constant", 0...Double.infinity)
        try finite(keywordWeight, "keyword weight", 0...Double.infinity)
        try finite(bm25.k1, "BM25 k1", 0...Double.infinity)
        try finite(bm25.b, "BM25 b", 0...1)
        try finite(bm25.headingWeight, "heading weight", 0...Double.infinity)
        if let minScore, !(minScore.isFinite && (-1...1).contains(minScore)) {
            throw SearchRequestError("minimum score is a cosine similarity, -1…1, got \(minScore)")
        }
        try checkSizes()
    }
}

/// A search request with a parameter out of range.
public struct SearchRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A lowercase sentence naming the parameter, its range and the value found.
    public var message: String

    /// An error with its message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

extension SearchRequest {
    /// How convex fusion normalises scores (`minmax`, `zscore`).
    public typealias Normalization = ScoreFusion.Normalization
    /// BM25's parameters (k1, b, heading weight).
    public typealias BM25 = TroveStore.BM25
}

extension Double {
    /// `2` for 2.0, `0.75` for 0.75: a parameter as a person writes it, in messages and help.
    package var plainText: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}

/// Ranks an index's passages against a query by meaning, by keywords, or both.
public final class Retriever {
    package let store: any IndexBackend
    package let manifest: IndexManifest
    /// Where vector candidates come from: a BLAS scan of the store's snapshot, or the store's own query.
    private let vectors: any VectorRanking

    /// Opens the index's fingerprint; an index with nothing in it is refused, since no search could find anything.
    package init(store: any IndexBackend) throws {
        guard let manifest = try store.manifest(), try store.hasVectors() else {
            throw IndexError.empty(store.location)
        }
        self.store = store
        self.manifest = manifest
        if let snapshots = store as? any VectorSnapshotStore {
            vectors = MatrixRanking(store: snapshots)
        } else if let queries = store as? any VectorQueryStore {
            vectors = StoreRanking(store: queries)
        } else {
            throw IndexError(code: .empty, message: "index \(store.location) cannot rank vectors with this trove")
        }
    }

    /// Refuses a `--model` that differs from the model the index was built with: their vectors don't compare.
    public func checkRequestedModel(_ model: String?) throws {
        guard let model, model != manifest.model else { return }
        throw IndexError(
            code: .modelMismatch,
            message: "index \(store.location) was built with '\(manifest.model)', not '\(model)' — "
                + "drop --model to search it, or index with '\(model)' into another --index")
    }

    /// The best `limit` passages for `query` by vector similarity, best first; passages scoring below `minScore`
    /// are left out. Every passage is returned, not one per document.
    public func search(query: String, embedder: any Embedder, limit: Int, minScore: Float = -1) async throws
        -> [SearchHit]
    {
        try await search(
            SearchRequest(query: query, mode: .vector, limit: limit, minScore: minScore, groupByDocument: false),
            embedder: embedder)
    }

    /// The query's embedding, unit length; checked against the index's dimension.
    public func embed(query: String, embedder: any Embedder) async throws -> [Float] {
        try checkedQuery(try await embedder.embed([manifest.queryPrefix + query]).first, model: embedder.model)
    }

    /// The results for `request`, best first. The embedder is not called in keyword mode.
    public func search(_ request: SearchRequest, embedder: any Embedder) async throws -> [SearchHit] {
        try request.validate()
        guard request.mode != .keyword else { return try search(request, queryVector: nil) }
        // The embedding is a round trip to the model server; load the vectors meanwhile instead of after it.
        let text = manifest.queryPrefix + request.query
        async let raw = embedder.embed([text])
        let loaded: Result<Void, any Error> = Result { try prepareVectors() }
        let vector = try checkedQuery(try await raw.first, model: embedder.model)
        _ = try loaded.get()
        return try search(request, queryVector: vector)
    }

    /// Checks an embedding's length against the index and normalizes it.
    func checkedQuery(_ raw: [Float]?, model: String) throws -> [Float] {
        guard let raw, raw.count == manifest.dimension else {
            throw IndexError.dimension(expected: manifest.dimension, got: raw?.count ?? 0, model: model)
        }
        return VectorMath.normalized(raw)
    }

    /// The results for `request` with the query already embedded (`queryVector` nil only in keyword mode).
    public func search(_ request: SearchRequest, queryVector: [Float]?) throws -> [SearchHit] {
        try request.validate()
        guard request.limit > 0 else { return [] }
        precondition(request.mode == .keyword || queryVector != nil, "a vector search needs the query's vector")
        // Filters become the candidate set before anything is ranked, so top-k is taken among matching documents.
        let allowed = try allowedChunkIDs(request.filter)
        if let allowed, allowed.isEmpty { return [] }
        // A vector ranking restricted to the allowed chunks (a row mask, or the store's WHERE clause), set up once.
        let nearest = try (request.mode == .keyword ? nil : queryVector).map { vector in
            try vectors.ranking(
                query: vector, allowed: allowed, minScore: request.minScore ?? -.infinity,
                quantized: request.quantized)
        }

        var depth = Swift.max(request.candidateDepth, request.limit)
        while true {
            let vectorRows = try nearest.map { try $0(depth) } ?? []
            let keywordHits =
                request.mode == .vector
                ? []
                : try store.keywordSearch(
                    KeywordQuery.meaningfulText(request.query), limit: depth, allowedChunkIDs: allowed,
                    bm25: request.bm25)

            var candidates: [Candidate]
            switch request.mode {
            case .vector:
                candidates = vectorRows.enumerated().map {
                    Candidate(id: $1.id, score: $1.score, vectorRank: $0 + 1, vectorScore: $1.score)
                }
            case .keyword:
                candidates = keywordHits.enumerated().map {
                    Candidate(id: $1.chunkID, score: Float($1.score), keywordRank: $0 + 1, keywordScore: $1.score)
                }
            case .hybrid:
                let keywordRows = keywordHits.map { ScoredRow(id: $0.chunkID, score: Float($0.score)) }
                if request.groupByDocument && request.documentLevelFusion {
                    candidates = try fuseDocuments(vectorRows, keywordRows, request)
                } else {
                    candidates = fuse(vectorRows, keywordRows, request).map { row in
                        Candidate(
                            id: row.id, score: Float(row.score), vectorRank: row.ranks[0],
                            vectorScore: row.ranks[0].map { vectorRows[$0 - 1].score }, keywordRank: row.ranks[1],
                            keywordScore: row.ranks[1].map { keywordHits[$0 - 1].score }, fusedScore: row.score)
                    }
                }
            }
            if nearest != nil, let queryVector {
                // Keyword-only candidates get their cosine too: for --explain, and so --min-score holds for all.
                let unscored = candidates.filter { $0.vectorScore == nil }.map(\.id)
                if !unscored.isEmpty {
                    let scores = try vectors.similarities(of: unscored, query: queryVector)
                    for index in candidates.indices where candidates[index].vectorScore == nil {
                        candidates[index].vectorScore = scores[candidates[index].id]
                    }
                }
                if let floor = request.minScore {
                    candidates.removeAll { ($0.vectorScore ?? -.infinity) < floor }
                }
            }

            var documents: [Int64: Int64] = [:]
            if request.groupByDocument {
                documents = try store.documentIDs(ofChunks: candidates.map(\.id))
                var seen = Set<Int64>()
                candidates = candidates.filter { seen.insert(documents[$0.id] ?? -$0.id).inserted }
            }
            // Grouping can leave fewer than `limit` documents while deeper candidates exist: look deeper.
            let exhausted = vectorRows.count < depth && keywordHits.count < depth
            if candidates.count >= request.limit || exhausted || depth >= Int(Int32.max) / 4 {
                var winners = Array(candidates.prefix(request.limit))
                if request.mode == .hybrid {
                    try scoreKeywords(&winners, query: request.query, bm25: request.bm25)
                }
                return try hits(winners, documents: documents)
            }
            depth *= 4
        }
    }

    /// Chunk ids of the documents `filter` allows, ascending; nil when the filter allows everything.
    public func allowedChunkIDs(_ filter: SearchFilter) throws -> [Int64]? {
        guard !filter.isEmpty else { return nil }
        if !filter.roots.isEmpty {
            let indexed = try store.roots().map(\.path)
            for name in filter.roots where !indexed.contains(where: { SearchFilter.root($0, isNamed: name) }) {
                throw SearchFilterError(
                    "no indexed folder is called '\(name)' — indexed: \(indexed.joined(separator: ", "))")
            }
        }
        let documents = try store.searchableDocuments().filter(filter.matches).map(\.id)
        return try store.chunkIDs(inDocuments: documents)
    }

    /// Readies the vectors for ranking: loads a snapshot store's matrix (from its flat cache file when that is
    /// current); nothing for a store that ranks in its own queries.
    public func prepareVectors() throws { try vectors.prepare() }

    /// The snapshot matrix (benchmarks and tests of the SQLite store); a store that ranks itself has none.
    public func loadedMatrix() throws -> VectorMatrix {
        guard let matrix = vectors as? MatrixRanking else {
            throw IndexError(
                code: .empty, message: "index \(store.location) ranks vectors in its server: it has no matrix to load")
        }
        return try matrix.loadedMatrix()
    }

    /// Forgets the loaded vectors, so the next search reads them again (after the index changed).
    public func reload() {
        if let matrix = vectors as? MatrixRanking { matrix.forget() }
    }

    /// A candidate passage on its way to becoming a hit.
    private struct Candidate {
        var id: Int64
        var score: Float
        var vectorRank: Int? = nil
        var vectorScore: Float? = nil
        var keywordRank: Int? = nil
        var keywordScore: Double? = nil
        var fusedScore: Double? = nil
    }

    /// The two rankings fused by the request's method (ids are whatever the lists hold: passages or documents).
    private func fuse(_ vector: [ScoredRow], _ keyword: [ScoredRow], _ request: SearchRequest) -> [FusedRow] {
        let weights = [1, request.keywordWeight]
        switch request.fusion {
        case .rrf:
            return RankFusion(constant: request.fusionConstant, weights: weights)
                .fuse([vector.map(\.id), keyword.map(\.id)])
        case .convex:
            return ScoreFusion(
                normalization: request.normalization, weights: weights, statisticsDepth: request.scaleDepth
            ).fuse([vector, keyword])
        }
    }

    /// Document-level fusion: each list reduced to its best passage per document, the documents fused, and each
    /// document shown by its best passage by meaning (by keywords when only the keyword list has it). Ranks are
    /// the document's in each reduced list; scores are the shown passage's.
    private func fuseDocuments(_ vector: [ScoredRow], _ keyword: [ScoredRow], _ request: SearchRequest) throws
        -> [Candidate]
    {
        let documentOf = try store.documentIDs(ofChunks: vector.map(\.id) + keyword.map(\.id))
        func reduced(_ rows: [ScoredRow]) -> (documents: [ScoredRow], passages: [ScoredRow]) {
            var seen = Set<Int64>()
            let best = rows.filter { seen.insert(documentOf[$0.id] ?? -$0.id).inserted }
            return (best.map { ScoredRow(id: documentOf[$0.id] ?? -$0.id, score: $0.score) }, best)
        }
        let (vectorDocuments, vectorPassages) = reduced(vector)
        let (keywordDocuments, keywordPassages) = reduced(keyword)
        return fuse(vectorDocuments, keywordDocuments, request).map { row in
            let shown = row.ranks[0].map { vectorPassages[$0 - 1] } ?? keywordPassages[row.ranks[1]! - 1]
            // The keyword score is the shown passage's, filled in for the winners (`scoreKeywords`).
            return Candidate(
                id: shown.id, score: Float(row.score), vectorRank: row.ranks[0],
                vectorScore: row.ranks[0].map { _ in shown.score }, keywordRank: row.ranks[1], fusedScore: row.score)
        }
    }

    /// Gives every winner its keyword score, those beyond the keyword candidates too (0 when no query word occurs
    /// in it), so a script can threshold on it; one query restricted to the winners.
    private func scoreKeywords(_ winners: inout [Candidate], query: String, bm25: BM25) throws {
        let missing = winners.filter { $0.keywordScore == nil }.map(\.id)
        guard !missing.isEmpty else { return }
        let scores = try store.keywordSearch(
            KeywordQuery.meaningfulText(query), limit: missing.count, allowedChunkIDs: missing.sorted(), bm25: bm25)
        let byID = Dictionary(scores.map { ($0.chunkID, $0.score) }, uniquingKeysWith: { a, _ in a })
        for index in winners.indices where winners[index].keywordScore == nil {
            winners[index].keywordScore = byID[winners[index].id] ?? 0
        }
    }

    /// Reads the winners' text (only theirs) and builds the hits.
    private func hits(_ winners: [Candidate], documents: [Int64: Int64]) throws -> [SearchHit] {
        let chunks = try store.chunks(ids: winners.map(\.id))
        var documents = documents
        let missing = winners.map(\.id).filter { documents[$0] == nil }
        if !missing.isEmpty { documents.merge(try store.documentIDs(ofChunks: missing)) { $1 } }
        return winners.compactMap { winner -> SearchHit? in
            guard let chunk = chunks[winner.id] else { return nil }
            var hit = SearchHit(
                rank: 0, chunkID: winner.id, rootPath: chunk.rootPath, relativePath: chunk.path,
                startLine: chunk.startLine, endLine: chunk.endLine, heading: chunk.heading, score: winner.score,
                text: chunk.text)
            hit.documentID = documents[winner.id] ?? 0
            hit.vectorScore = winner.vectorScore
            hit.vectorRank = winner.vectorRank
            hit.keywordScore = winner.keywordScore
            hit.keywordRank = winner.keywordRank
            hit.fusedScore = winner.fusedScore
            return hit
        }.enumerated().map { offset, hit in
            var hit = hit
            hit.rank = offset + 1
            return hit
        }
    }
}
