import CTroveFTS

extension SQLiteStore {
    /// Rows scored at most, in index order, among those that hold none of a query's other words but only words
    /// found in at least half of all passages. Above it those rows are ranked among the first this many.
    static let commonWordRowCap = 5_000

    /// The keyword ranking of `phrases` (one table, no CJK) when some occur in at least half of all passages, nil
    /// when none does (the plain ranking is then as fast) or when the statement could not be planned.
    ///
    /// Such a word's IDF is the sliver (`TROVE_BM25_SLIVER`), so a row holding only such words scores at most
    /// sliver × (k1 + 1) for each, below any row with another query word unless that row has a sliver of its own.
    /// Without this, FTS5 hands every row of the common word to the ranking function (all 100,000 of a synthetic
    /// set whose passages all say "passage … topic …"). So the rows with one of the other words are ranked first
    /// (their scores counting the common words too), and only when fewer than `limit` of them beat that bound are
    /// the rows with nothing but common words ranked, at most `cap` of them (in index order): exact below it.
    func rankingPastCommonWords(
        _ phrases: [String], limit: Int, restriction: String = "", allowedChunkIDs: [Int64]? = nil, bm25: BM25,
        cap: Int = commonWordRowCap
    ) throws -> [KeywordHit]? {
        guard let query = Self.or(phrases), bm25.k1 >= 0, (0...1).contains(bm25.b), bm25.headingWeight >= 0 else {
            return nil
        }
        let idf: [Double]? = try database.withStatement(
            "SELECT trove_bm25_idf(chunks_fts, 'chunks_fts', ?1) FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT 1"
        ) { statement in
            try statement.bind(query, at: 1)
            guard try statement.step() else { return nil }
            return statement.string(0).split(separator: " ").compactMap { Double($0) }
        }
        guard let idf else { return [] }
        // FTS5 numbers the phrases it parsed; one it dropped would shift every index after it.
        guard idf.count == phrases.count else { return nil }
        let common = idf.indices.filter { idf[$0] <= TROVE_BM25_SLIVER }
        guard !common.isEmpty else { return nil }
        var seen = Set<String>()
        let others = phrases.indices.filter { !common.contains($0) }.map { phrases[$0] }
            .filter { seen.insert($0).inserted }

        func ranked(_ match: String, first: Int, capped: Bool) throws -> [KeywordHit] {
            let scored =
                "SELECT rowid, \(Self.bm25Top("chunks_fts", key: "?6", first: first, count: phrases.count, limit: "?4")) "
                + "AS score FROM chunks_fts WHERE chunks_fts MATCH ?7\(restriction)"
            let sql =
                capped
                ? "SELECT rowid, score FROM (\(scored) LIMIT ?8) ORDER BY score DESC, rowid LIMIT ?4"
                : scored + " ORDER BY score DESC, rowid LIMIT ?4"
            return try keywordHits(sql, limit: limit, allowedChunkIDs: allowedChunkIDs, bm25: bm25) { statement in
                try statement.bind(query, at: 6)
                try statement.bind(match, at: 7)
                if capped { try statement.bind(cap, at: 8) }
            }
        }

        var hits: [KeywordHit] = []
        let rare = Self.or(others)
        if let rare {
            // Rows with another word, every phrase of the query scored (they follow the selecting ones).
            hits = try ranked("(\(rare)) AND (\(query))", first: others.count, capped: false)
            let bound = Double(common.count) * TROVE_BM25_SLIVER * (bm25.k1 + 1)
            if hits.count == limit, let last = hits.last, last.score > bound { return hits }
        }
        let onlyCommon = rare.map { "(\(query)) NOT (\($0))" } ?? query
        hits += try ranked(onlyCommon, first: 0, capped: true)
        hits.sort { $0.score != $1.score ? $0.score > $1.score : $0.chunkID < $1.chunkID }
        return Array(hits.prefix(limit))
    }
}
