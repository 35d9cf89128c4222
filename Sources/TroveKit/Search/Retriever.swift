import TroveIngest
import TroveSearch
import TroveStore

/// Ranks an index's passages against a query by meaning, by keywords, or both.
public final class Retriever {
    package let store: any IndexReader
    package let manifest: IndexManifest
    /// Where vector candidates come from: a BLAS scan of the store's snapshot, or the store's own query.
    private let vectors: any VectorRanking
    /// The store when it evaluates filters in its own queries (PostgreSQL), nil for a snapshot store.
    private let queryStore: (any VectorQueryStore)?
    /// When a `.automatic` search scans the int8 copy: set warm by `TroveIndex.warmUp`.
    package var automaticScan = AutomaticScan()

    /// Opens the index's fingerprint; an index with nothing in it is refused, since no search could find anything.
    package init(store: any IndexReader) throws {
        guard let manifest = try store.manifest(), try store.hasVectors() else {
            throw IndexError.empty(store.location)
        }
        self.store = store
        self.manifest = manifest
        queryStore = store as? any VectorQueryStore
        if let snapshots = store as? any VectorSnapshotStore {
            vectors = MatrixRanking(store: snapshots)
        } else if let queryStore {
            vectors = StoreRanking(store: queryStore)
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
        let loaded: Result<Void, any Error> = Result { try prepareVectors(for: request.scan, aside: true) }
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
        let allowed = try restriction(request.filter)
        if allowed?.allowsNothing == true { return [] }
        // A vector ranking restricted to the allowed chunks (a row mask, or the store's WHERE clause), set up once.
        let nearest = try (request.mode == .keyword ? nil : queryVector).map { vector in
            try vectors.ranking(
                query: vector, allowed: allowed, minScore: request.minScore ?? -.infinity, scan: request.scan,
                automatic: automaticScan)
        }

        var depth = Swift.max(request.candidateDepth, request.limit)
        while true {
            let vectorRows = try nearest.map { try $0(depth) } ?? []
            let keywordHits =
                request.mode == .vector
                ? []
                : try keywordSearch(
                    KeywordQuery.meaningfulText(request.query), limit: depth, allowed: allowed, bm25: request.bm25)

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
        switch try restriction(filter) {
        case nil: return nil
        case .chunks(let ids): return ids
        case .documents(let conditions):
            return try store.chunkIDs(inDocuments: documents(matching: conditions).map(\.id))
        }
    }

    /// Whether any indexed document passes `filter`.
    public func anyDocumentMatches(_ filter: SearchFilter) throws -> Bool {
        switch try restriction(filter) {
        case nil: return true
        case .chunks(let ids): return !ids.isEmpty
        case .documents(let conditions): return try !documents(matching: conditions, limit: 1).isEmpty
        }
    }

    /// What `filter` allows, as the store takes it: the allowed chunk ids for a snapshot store (its row mask), the
    /// conditions themselves for a store that evaluates them in its queries (PostgreSQL's `WHERE` clause), so no
    /// list of every allowed chunk is built. nil when the filter allows everything.
    private func restriction(_ filter: SearchFilter) throws -> CandidateRestriction? {
        guard !filter.isEmpty else { return nil }
        var rootPaths: [String]?
        if !filter.roots.isEmpty {
            let indexed = try store.roots().map(\.path)
            for name in filter.roots where !indexed.contains(where: { SearchFilter.root($0, isNamed: name) }) {
                throw SearchFilterError(
                    "no indexed folder is called '\(name)' — indexed: \(indexed.joined(separator: ", "))")
            }
            rootPaths = indexed.filter { path in filter.roots.contains { SearchFilter.root(path, isNamed: $0) } }
        }
        var conditions = filter.conditions(rootPaths: rootPaths)
        guard queryStore != nil else {
            let documents = try store.searchableDocuments().filter { conditions.matches($0) && filter.pathMatches($0) }
            return .chunks(try store.chunkIDs(inDocuments: documents.map(\.id)))
        }
        if !filter.pathGlobs.isEmpty {
            // Globs stay in Swift: they match path segments byte by byte (fnmatch over UTF-8, `?` one byte, `[…]`
            // byte ranges), which PostgreSQL's character-wise LIKE and regular expressions would match differently
            // on non-ASCII names. They are evaluated over the documents the other conditions leave (one row per
            // document, not per passage) and reach the query as document ids.
            let chosen = try documents(matching: conditions).filter(filter.pathMatches).map(\.id)
            conditions.documentIDs = Set(chosen)
        }
        return .documents(conditions)
    }

    /// The documents meeting `conditions`, from the store's own query (only for a query store).
    private func documents(matching conditions: DocumentConditions, limit: Int? = nil) throws
        -> [SearchableDocument]
    {
        guard let queryStore else {
            return try store.searchableDocuments().filter(conditions.matches).prefix(limit ?? .max).map { $0 }
        }
        return try queryStore.searchableDocuments(matching: conditions, limit: limit)
    }

    /// The keyword ranking restricted as the filter says: to chunk ids, or by conditions in the store's query.
    private func keywordSearch(_ query: String, limit: Int, allowed: CandidateRestriction?, bm25: BM25) throws
        -> [KeywordHit]
    {
        switch allowed {
        case .documents(let conditions)?:
            guard let queryStore else {
                let ids = try store.chunkIDs(inDocuments: documents(matching: conditions).map(\.id))
                return try store.keywordSearch(query, limit: limit, allowedChunkIDs: ids, bm25: bm25)
            }
            return try queryStore.keywordSearch(query, limit: limit, matching: conditions, bm25: bm25)
        case .chunks(let ids)?:
            return try store.keywordSearch(query, limit: limit, allowedChunkIDs: ids, bm25: bm25)
        case nil:
            return try store.keywordSearch(query, limit: limit, allowedChunkIDs: nil, bm25: bm25)
        }
    }

    /// Readies the vectors for ranking: loads a snapshot store's matrix (from its flat cache file when that is
    /// current), and builds its int8 copy when a search asking for `scan` would scan it (`automaticScan` deciding),
    /// `aside` on another thread for `.automatic`, whose searches scan exactly until it is built; nothing for a store
    /// that ranks in its own queries.
    public func prepareVectors(for scan: VectorScan, aside: Bool = false) throws {
        try vectors.prepare(scan, automaticScan, aside: aside)
    }

    /// Whether the snapshot's int8 copy is built (tests).
    package var holdsInt8Copy: Bool { (vectors as? MatrixRanking)?.holdsInt8Copy ?? false }

    /// The snapshot matrix (benchmarks and tests of the SQLite store); a store that ranks itself has none.
    package func loadedMatrix() throws -> VectorMatrix {
        guard let matrix = vectors as? MatrixRanking else {
            throw IndexError(
                code: .empty, message: "index \(store.location) ranks vectors in its server: it has no matrix to load")
        }
        return try matrix.loadedMatrix()
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
        let pages = try store.structures(
            ofDocuments: Array(Set(winners.compactMap { documents[$0.id] })).sorted(),
            format: DocumentFormat.html.rawValue
        ).mapValues(HeadingAnchors.headings(inStructure:))
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
            hit.locator = chunk.locator.flatMap(PassageLocator.init(stored:))
            hit.anchor = pages[hit.documentID].flatMap { HeadingAnchors.anchor(forLine: chunk.startLine, in: $0) }
            return hit
        }.enumerated().map { offset, hit in
            var hit = hit
            hit.rank = offset + 1
            return hit
        }
    }
}
