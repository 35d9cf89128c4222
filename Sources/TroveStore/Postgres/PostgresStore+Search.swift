/// Search on PostgreSQL: keywords through the `tsvector` column, vectors through pgvector, both with the filter in
/// the `WHERE` clause (as document conditions, `PostgresStore+Filters.swift`, or chunk ids) so it applies before
/// top-k.
extension PostgresStore: VectorQueryStore {
    /// Every document with its root and mtime, for evaluating search filters.
    package func searchableDocuments() throws -> [SearchableDocument] {
        let rows = try connection.query(
            """
            SELECT documents.id, roots.path, documents.path, documents.mtime_ns
            FROM documents JOIN roots ON roots.id = documents.root_id ORDER BY documents.id
            """)
        return (0..<rows.count).map {
            SearchableDocument(
                id: rows.int64($0, 0), rootPath: rows.string($0, 1), path: rows.string($0, 2),
                modifiedNanoseconds: rows.int64($0, 3))
        }
    }

    /// The ids of every chunk of these documents, ascending.
    package func chunkIDs(inDocuments documentIDs: [Int64]) throws -> [Int64] {
        guard !documentIDs.isEmpty else { return [] }
        let rows = try connection.query(
            "SELECT id FROM chunks WHERE document_id = ANY($1::bigint[]) ORDER BY id", [PostgresArray.ids(documentIDs)])
        return (0..<rows.count).map { rows.int64($0, 0) }
    }

    /// The document id of each of these chunks; unknown chunk ids are absent.
    package func documentIDs(ofChunks chunkIDs: [Int64]) throws -> [Int64: Int64] {
        guard !chunkIDs.isEmpty else { return [:] }
        let rows = try connection.query(
            "SELECT id, document_id FROM chunks WHERE id = ANY($1::bigint[])", [PostgresArray.ids(chunkIDs)])
        var documents: [Int64: Int64] = [:]
        for row in 0..<rows.count { documents[rows.int64(row, 0)] = rows.int64(row, 1) }
        return documents
    }

    /// The chunks with these ids, with their document path and root.
    package func chunks(ids: [Int64]) throws -> [Int64: StoredChunk] {
        guard !ids.isEmpty else { return [:] }
        let rows = try connection.query(
            """
            SELECT chunks.id, roots.path, documents.path, chunks.start_line, chunks.end_line, chunks.heading, chunks.text,
                   chunks.locator_kind, chunks.locator_first, chunks.locator_last, chunks.locator_approximate
            FROM chunks JOIN documents ON documents.id = chunks.document_id JOIN roots ON roots.id = documents.root_id
            WHERE chunks.id = ANY($1::bigint[])
            """, [PostgresArray.ids(ids)])
        var chunks: [Int64: StoredChunk] = [:]
        for row in 0..<rows.count {
            let chunk = StoredChunk(
                id: rows.int64(row, 0), rootPath: rows.string(row, 1), path: rows.string(row, 2),
                startLine: rows.int(row, 3), endLine: rows.int(row, 4), heading: rows.string(row, 5),
                text: rows.string(row, 6), locator: rows.locator(row, 7))
            chunks[chunk.id] = chunk
        }
        return chunks
    }

    /// Whether the index holds any vector.
    package func hasVectors() throws -> Bool {
        try connection.scalar("SELECT EXISTS (SELECT 1 FROM vectors)") == "t"
    }

    // MARK: Keywords

    /// The `limit` chunks that best match `query` by Okapi BM25 (`bm25`'s k1 and b; the heading weight does not
    /// apply), best first, ties by id: the OR of the query's `english` lexemes finds the candidates through the GIN
    /// index, each lexeme's document frequency is counted with it, N and the average length come from
    /// `keyword_stats`. FTS5's IDF, floored; a repeated query word counts twice. The exact SQL and its measurement
    /// (mean nDCG@10 0.4684 on the four public sets, SQLite's 0.4643, `ts_rank_cd` 0.2111) are the pgbench
    /// branch's (/work/notes/pg-findings.md). Any text is safe: lexemes are quoted by `or_query`. CJK words are not
    /// split (the `english` parser keeps a run of CJK characters whole).
    package func keywordSearch(_ query: String, limit: Int, allowedChunkIDs: [Int64]?, bm25: BM25) throws
        -> [KeywordHit]
    {
        try keywordSearch(query, limit: limit, restriction: allowedChunkIDs.map { .chunks($0) }, bm25: bm25)
    }

    /// `keywordSearch` among the chunks of the documents meeting `conditions`, in the query's `WHERE` clause.
    package func keywordSearch(_ query: String, limit: Int, matching conditions: DocumentConditions, bm25: BM25)
        throws -> [KeywordHit]
    {
        try keywordSearch(query, limit: limit, restriction: .documents(conditions), bm25: bm25)
    }

    private func keywordSearch(_ query: String, limit: Int, restriction: CandidateRestriction?, bm25: BM25) throws
        -> [KeywordHit]
    {
        guard limit > 0, restriction?.allowsNothing != true else { return [] }
        // PostgreSQL text cannot hold NUL.
        let text = String(String.UnicodeScalarView(query.unicodeScalars.filter { $0 != "\u{0}" }))
        guard text.contains(where: { $0.isLetter || $0.isNumber }) else { return [] }
        let (term, restrictionParameters) = restriction?.sql(chunk: "id", document: "document_id", first: 5) ?? ("", [])
        let rows = try connection.query(
            """
            WITH s AS (SELECT passages::float8 AS n, tokens::float8 / greatest(passages, 1) AS avgdl FROM keyword_stats),
            q AS (SELECT lexeme, array_length(positions, 1) AS qtf FROM unnest(to_tsvector('english', $1::text))),
            w AS (SELECT q.lexeme, q.qtf * greatest(ln((s.n - d.df + 0.5) / (d.df + 0.5)), 1e-6) AS idf
                  FROM q CROSS JOIN s
                  CROSS JOIN LATERAL (SELECT count(*) AS df FROM chunks
                                      WHERE keywords @@ quote_literal(q.lexeme)::tsquery) d),
            cand AS (SELECT id, keywords, keyword_length FROM chunks WHERE keywords @@ or_query($1::text)\(term.isEmpty ? "" : " AND " + term))
            SELECT c.id, sum(w.idf * u.tf * ($2::float8 + 1)
                    / (u.tf + $2::float8 * (1 - $3::float8 + $3::float8 * c.keyword_length / s.avgdl))) AS score
            FROM cand c CROSS JOIN s
            CROSS JOIN LATERAL (SELECT lexeme, array_length(positions, 1) AS tf FROM unnest(c.keywords)) u
            JOIN w ON w.lexeme = u.lexeme
            GROUP BY c.id ORDER BY score DESC, c.id LIMIT $4::bigint
            """,
            [text, String(bm25.k1), String(bm25.b), String(limit)] + restrictionParameters)
        return (0..<rows.count).map { KeywordHit(chunkID: rows.int64($0, 0), score: rows.double($0, 1)) }
    }

    // MARK: Vectors

    /// The `limit` chunks nearest to `query` by cosine, best first (ties by id), at or above `minScore`, only
    /// among `allowedChunkIDs` when given (in the `WHERE` clause, before top-k).
    ///
    /// Exact (`ORDER BY embedding <=> $1 LIMIT k`, a scan) unless the HNSW index exists and the filter is not too
    /// selective for it (`approximateSearchSize`). pgvector 0.6 filters an HNSW scan after the index has produced
    /// its `ef_search` candidates, so `ef_search` is raised over the filter's share, and when the index still
    /// returns fewer than `limit` rows while more exist, the query is answered exactly: a filter never empties or
    /// shortens an ANN result.
    package func nearestChunks(to query: [Float], limit: Int, minScore: Float, allowedChunkIDs: [Int64]?) throws
        -> [VectorHit]
    {
        try nearestChunks(query, limit: limit, minScore: minScore, restriction: allowedChunkIDs.map { .chunks($0) })
    }

    /// `nearestChunks` among the chunks of the documents meeting `conditions`, in the query's `WHERE` clause.
    package func nearestChunks(to query: [Float], limit: Int, minScore: Float, matching conditions: DocumentConditions)
        throws -> [VectorHit]
    {
        try nearestChunks(query, limit: limit, minScore: minScore, restriction: .documents(conditions))
    }

    private func nearestChunks(_ query: [Float], limit: Int, minScore: Float, restriction: CandidateRestriction?)
        throws -> [VectorHit]
    {
        guard limit > 0, restriction?.allowsNothing != true else { return [] }
        let vector = PostgresVector.text(query)
        var hits: [VectorHit]
        // The allowed count matters only with the HNSW index (the filter's share); without one, no count is made.
        let hnsw = try hasHNSW()
        let allowed = try hnsw ? restriction.map(allowedChunkCount) : nil
        if hnsw, let searchSize = try approximateSearchSize(limit: limit, allowed: allowed) {
            hits = try nearest(vector, limit: limit, allowed: restriction, efSearch: searchSize)
            let available = try allowed ?? vectorCount()
            if hits.count < min(limit, available) {
                hits = try nearest(vector, limit: limit, allowed: restriction, efSearch: nil)
            }
        } else {
            hits = try nearest(vector, limit: limit, allowed: restriction, efSearch: nil)
        }
        // The ORDER BY must be the distance alone for pgvector to use its index: ties are ordered here.
        hits.sort { $0.score != $1.score ? $0.score > $1.score : $0.chunkID < $1.chunkID }
        return hits.filter { $0.score >= minScore }
    }

    /// The cosine similarity of each of these chunks with `query`.
    package func similarities(ofChunks chunkIDs: [Int64], to query: [Float]) throws -> [Int64: Float] {
        guard !chunkIDs.isEmpty else { return [:] }
        let rows = try connection.query(
            "SELECT chunk_id, 1 - (embedding <=> $1::vector) FROM vectors WHERE chunk_id = ANY($2::bigint[])",
            [PostgresVector.text(query), PostgresArray.ids(chunkIDs)])
        var scores: [Int64: Float] = [:]
        for row in 0..<rows.count { scores[rows.int64(row, 0)] = Float(rows.double(row, 1)) }
        return scores
    }

    /// One nearest-neighbour query: through the HNSW index with `efSearch` candidates, or exact when nil. Exact
    /// orders by `distance + 0`, an expression the HNSW index cannot serve, so the planner computes every allowed
    /// row's distance while keeping its other indexes for the filter (turning index scans off, as this did first,
    /// also turned off the `chunks.document_id` lookups a filter's conditions need).
    private func nearest(_ vector: String, limit: Int, allowed: CandidateRestriction?, efSearch: Int?) throws
        -> [VectorHit]
    {
        try connection.transaction {
            // SET LOCAL lasts until this transaction ends; the value is our own integer.
            if let efSearch { try connection.execute("SET LOCAL hnsw.ef_search = \(efSearch)") }
            let (term, parameters) = allowed?.sql(chunk: "chunk_id", first: 3) ?? ("", [])
            let order = efSearch == nil ? "(embedding <=> $1::vector) + 0" : "embedding <=> $1::vector"
            let rows = try connection.query(
                "SELECT chunk_id, 1 - (embedding <=> $1::vector) FROM vectors \(term.isEmpty ? "" : "WHERE " + term) "
                    + "ORDER BY \(order) LIMIT $2",
                [vector, String(limit)] + parameters)
            return (0..<rows.count).map { VectorHit(chunkID: rows.int64($0, 0), score: Float(rows.double($0, 1))) }
        }
    }

    /// `ef_search` for an HNSW query of `limit` rows (the index exists), or nil when the query should be exact. A filtered HNSW scan
    /// behaves like an unfiltered one with `ef_search × share` candidates (share: the rows the filter keeps), so
    /// `ef_search = ceil(E / share)` with E = max(100, 2·limit) — pgvector's default 40 gave recall@10 0.71 at 1M,
    /// 100 gave 0.83 — and exact when that passes pgvector's maximum 1000, i.e. for a selective filter, which an
    /// exact scan answers cheaply (only the kept rows are scored). Measured on the pgbench branch
    /// (/work/notes/pg-findings.md); the planner is not trusted with this (at 1M it picks HNSW for a 1 % filter).
    private func approximateSearchSize(limit: Int, allowed: Int?) throws -> Int? {
        var share = 1.0
        if let allowed {
            // An exact scan of so few rows is as fast as the index, and exact.
            if allowed <= Self.hnswThreshold { return nil }
            let total = try vectorCount()
            guard total > 0 else { return nil }
            share = min(1, Double(allowed) / Double(total))
        }
        let wanted = (Double(max(100, 2 * limit)) / share).rounded(.up)
        return wanted <= 1000 ? Int(wanted) : nil
    }

    /// The number of vectors: the planner's estimate when it has one (no scan), else counted.
    func vectorCount() throws -> Int {
        let estimate = Int(Double(try connection.scalar("SELECT reltuples FROM pg_class WHERE oid = 'vectors'::regclass") ?? "-1") ?? -1)
        if estimate > 0 { return estimate }
        return Int(try connection.scalar("SELECT count(*) FROM vectors") ?? "0") ?? 0
    }

    // MARK: HNSW

    /// Vectors from which `hnsw=auto` builds the HNSW index, and below which a (filtered) query stays exact:
    /// measured (BENCHMARKS.md#hnsw-crossover), d 384, an exact scan costs 36 ms at 10k and 209 ms at
    /// 100k, HNSW 8 ms at 100k with recall@10 1.0, so the crossover is near 20k.
    package static let hnswThreshold = 20_000

    /// Whether the HNSW index exists.
    package func hasHNSW() throws -> Bool {
        try connection.scalar("SELECT to_regclass('vectors_hnsw') IS NOT NULL") == "t"
    }

    /// Seconds per vector of an HNSW build (m 16, ef_construction 64) at d 384, measured in
    /// BENCHMARKS.md#hnsw-build-rate: 187 s for 100k, 2,551 s for 1M on two loaded cores; the larger rate, scaled by d.
    static let buildSecondsPerVector384 = 0.0026

    /// What the HNSW policy wants and what exists, with the vector count counted (not estimated: it decides a
    /// message about a build).
    package func annIndexState() throws -> ANNIndexState? {
        let vectors = Int(try connection.scalar("SELECT count(*) FROM vectors") ?? "0") ?? 0
        let wanted: Bool
        switch url.hnsw {
        case .off: wanted = false
        case .on: wanted = vectors > 0
        case .auto: wanted = vectors >= Self.hnswThreshold
        }
        let dimension = try manifestDimension() ?? 384
        let seconds = Double(vectors) * Self.buildSecondsPerVector384 * Double(dimension) / 384
        return ANNIndexState(
            policy: url.hnsw.rawValue, vectors: vectors, threshold: Self.hnswThreshold, wanted: wanted,
            built: try hasHNSW(), estimatedBuildSeconds: Int(seconds.rounded(.up)))
    }

    /// Builds the HNSW index when the policy says so (`on`, or `auto` at `hnswThreshold` vectors), drops it for
    /// `off`. Needs the typed column (`vector(d)`, d ≤ 2000 for pgvector's HNSW). A failed build leaves no index
    /// (CREATE INDEX is one transaction) and throws a message saying what follows and what to do.
    package func updateHNSW() throws {
        guard let state = try annIndexState() else { return }
        if state.wanted, !state.built {
            do {
                // Cosine distance, as the queries use; pgvector's defaults m 16, ef_construction 64.
                try connection.execute(
                    "CREATE INDEX IF NOT EXISTS vectors_hnsw ON vectors USING hnsw (embedding vector_cosine_ops)")
            } catch let error as StoreError {
                throw StoreError(
                    code: error.code,
                    message: "the HNSW index over \(state.vectors) vectors was not built (\(error.message))"
                        + " — searches stay exact, and slower; fix the cause (often maintenance_work_mem, disk space"
                        + " or the role's ownership of the table) and run trove index again",
                    sql: error.sql)
            }
        } else if !state.wanted {
            try dropHNSW()
        }
    }

    /// Drops the HNSW index if it exists (before a re-embed swaps every vector, or the column's type changes).
    func dropHNSW() throws {
        try connection.execute("DROP INDEX IF EXISTS vectors_hnsw")
    }
}
