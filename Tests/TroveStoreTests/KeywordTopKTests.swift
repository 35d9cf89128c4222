import CSQLite
import Testing
import CTroveFTS
import TroveTestSupport

@testable import TroveStore

/// `keywordSearch` ranks with `trove_bm25_top`, which skips rows a bound proves are outside the best `limit`; these
/// check it returns exactly what scoring every row with `trove_bm25` (lengths from FTS5's own lookup) returns.
@Suite("Keyword top-k: the bounded ranking equals scoring every row")
struct KeywordTopKTests {
    /// `passages` random passages over a small vocabulary: common words (in most rows), rare ones, repeated
    /// words, headings, and many rows of equal length, so ties by rowid are tested too.
    private func randomStore(_ directory: TemporaryDirectory, passages: Int, seed: UInt64) throws -> SQLiteStore {
        let store = try makeStore(in: directory)
        let root = try store.rootID(forPath: "/notes")
        var random = SplitMix64(seed: seed)
        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
        let common = ["flow", "wing", "heat"]
        let rare = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
        try store.inTransaction {
            for n in 0..<passages {
                var words: [String] = []
                for word in common where pick(10) < 7 { words.append(word) }
                for _ in 0..<pick(pick(4) == 0 ? 30 : 4) { words.append(rare[pick(rare.count)]) }
                if pick(8) == 0 { words += Array(repeating: common[pick(common.count)], count: 1 + pick(4)) }
                let heading = pick(5) == 0 ? rare[pick(rare.count)] + " " + common[pick(common.count)] : ""
                _ = try store.replaceDocument(
                    document(root, "\(n).md"), chunks: [chunk(0, words.joined(separator: " "), heading: heading)])
            }
        }
        return store
    }

    /// Every matching row scored by `trove_bm25`, best `limit` by score then rowid.
    private func reference(_ store: SQLiteStore, _ query: String, limit: Int, bm25: BM25, allowed: [Int64]? = nil)
        throws -> [KeywordHit]
    {
        let restriction = allowed == nil ? "" : " AND rowid IN (SELECT value FROM json_each(?6))"
        return try store.database.withStatement(
            "SELECT rowid, trove_bm25(chunks_fts, ?2, ?3, 1.0, ?4) AS s FROM chunks_fts WHERE chunks_fts MATCH ?1"
                + restriction + " ORDER BY s DESC, rowid LIMIT ?5"
        ) { statement in
            try statement.bind(SQLiteStore.ftsQuery(query)!, at: 1)
            try statement.bind(bm25.k1, at: 2)
            try statement.bind(bm25.b, at: 3)
            try statement.bind(bm25.headingWeight, at: 4)
            try statement.bind(limit, at: 5)
            if let allowed { try statement.bind("[" + allowed.map(String.init).joined(separator: ",") + "]", at: 6) }
            var hits: [KeywordHit] = []
            while try statement.step() { hits.append(KeywordHit(chunkID: statement.int64(0), score: statement.double(1))) }
            return hits
        }
    }

    @Test(
        "same ids, order and scores for common, rare and mixed queries at limits 1 … past the matches",
        arguments: [UInt64(1), 2, 3])
    func equalsFullRanking(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let store = try randomStore(directory, passages: 700, seed: seed)
        let queries = ["flow", "flow wing heat", "wing alpha", "theta kappa iota", "heat heat beta", "zeta"]
        let parameters = [BM25(k1: 0.9, b: 0.4), BM25(k1: 1.2, b: 0.75, headingWeight: 2.5), BM25(k1: 0, b: 0.5)]
        for query in queries {
            for bm25 in parameters {
                for limit in [1, 5, 37, 200, 5000] {
                    let ours = try store.keywordSearch(query, limit: limit, bm25: bm25)
                    let expected = try reference(store, query, limit: limit, bm25: bm25)
                    #expect(ours.map(\.chunkID) == expected.map(\.chunkID), "\(query) \(bm25) limit \(limit)")
                    #expect(ours.map(\.score) == expected.map(\.score), "\(query) \(bm25) limit \(limit)")
                }
            }
        }
    }

    @Test("the bound does skip rows: most of a common word's rows are never given a length")
    func skips() throws {
        let directory = try TemporaryDirectory()
        let store = try randomStore(directory, passages: 700, seed: 1)
        // Row by row: an auxiliary function cannot be used inside an aggregate's subquery.
        let (skipped, matched) = try store.database.withStatement(
            "SELECT trove_bm25_top(chunks_fts, 'chunks_fts', ?1, 0, 0, 5, 0.9, 0.4, 1.0, 1.0) IS NULL FROM chunks_fts "
                + "WHERE chunks_fts MATCH ?1"
        ) { statement in
            try statement.bind(SQLiteStore.ftsQuery("flow heat beta")!, at: 1)
            var skipped = 0
            var matched = 0
            while try statement.step() {
                matched += 1
                skipped += Int(statement.int64(0))
            }
            return (skipped, matched)
        }
        #expect(matched > 400 && skipped > matched / 2, "\(skipped) of \(matched) skipped")
    }

    @Test("a restriction to some passages keeps the bound exact among them")
    func restricted() throws {
        let directory = try TemporaryDirectory()
        let store = try randomStore(directory, passages: 400, seed: 9)
        let ids = try store.loadVectors().chunkIDs
        // Many ids (one filtered scan) and a few (looked up one by one, the IDF counted once).
        for allowed in [ids.filter { $0 % 3 != 0 }, ids.filter { $0 % 37 == 1 }] {
            for query in ["flow wing", "alpha heat"] {
                let ours = try store.keywordSearch(query, limit: 25, allowedChunkIDs: allowed)
                let expected = try reference(store, query, limit: 25, bm25: BM25(), allowed: allowed)
                #expect(ours.map(\.chunkID) == expected.map(\.chunkID))
                #expect(ours.map(\.score) == expected.map(\.score))
            }
        }
    }

    @Test("after passages are deleted and replaced, lengths still match FTS5's (gaps in the row ids)")
    func afterChanges() throws {
        let directory = try TemporaryDirectory()
        let store = try randomStore(directory, passages: 300, seed: 4)
        let root = try store.rootID(forPath: "/notes")
        // Searched first, so the statistics kept for this query describe the passages before the change.
        #expect(try store.keywordSearch("flow wing", limit: 3) == reference(store, "flow wing", limit: 3, bm25: BM25()))
        try store.inTransaction {
            for n in stride(from: 0, to: 300, by: 3) {
                _ = try store.replaceDocument(
                    document(root, "\(n).md", hash: "new"), chunks: [chunk(0, "flow wing " + String(n))])
            }
            let documents = try store.documents(inRoot: root)
            for n in stride(from: 1, to: 300, by: 7) { try store.deleteDocument(id: documents["\(n).md"]!.id) }
        }
        for limit in [3, 40] {
            let ours = try store.keywordSearch("flow wing", limit: limit)
            let expected = try reference(store, "flow wing", limit: limit, bm25: BM25())
            #expect(ours.map(\.chunkID) == expected.map(\.chunkID))
            #expect(ours.map(\.score) == expected.map(\.score))
        }
    }

    @Test("statistics kept for a query are not used after another connection changed the index")
    func otherConnection() throws {
        let directory = try TemporaryDirectory()
        let store = try randomStore(directory, passages: 200, seed: 5)
        #expect(try store.keywordSearch("zeta", limit: 5) == reference(store, "zeta", limit: 5, bm25: BM25()))
        // Same rows, same token counts (so only the data version tells), but "zeta" in many more of them.
        let other = try SQLiteStore(path: directory.path + "/index.sqlite", createIfMissing: false)
        try other.database.execute("UPDATE chunks SET text = replace(text, 'alpha', 'zeta')")
        let after = try store.keywordSearch("zeta", limit: 5)
        #expect(after == (try reference(store, "zeta", limit: 5, bm25: BM25())))
        #expect(after.count == 5)
    }

    @Test("words in most passages: the rows with the query's other words are ranked first, exactly, and the rest within the cap")
    func commonWords() throws {
        let directory = try TemporaryDirectory()
        let store = try randomStore(directory, passages: 700, seed: 2)
        let bm25 = BM25()
        // "flow", "wing" and "heat" are in ~70% of the passages, "alpha" … "kappa" in far fewer.
        #expect(try store.rankingPastCommonWords(SQLiteStore.ftsPhrases("alpha theta"), limit: 10, bm25: bm25) == nil)
        for query in ["flow alpha", "wing heat kappa", "flow wing"] {
            let phrases = SQLiteStore.ftsPhrases(query)
            for limit in [5, 60, 650] {
                let expected = try reference(store, query, limit: limit, bm25: bm25)
                let exact = try #require(try store.rankingPastCommonWords(phrases, limit: limit, bm25: bm25))
                #expect(exact == expected, "\(query) limit \(limit)")
                // With only 50 rows of common words looked at, the rows holding another word keep their places and
                // scores; the rest are correctly scored rows of common words, fewer and not the best.
                let capped = try #require(try store.rankingPastCommonWords(phrases, limit: limit, bm25: bm25, cap: 50))
                let scores = Dictionary(uniqueKeysWithValues: try reference(store, query, limit: 700, bm25: bm25).map {
                    ($0.chunkID, $0.score)
                })
                let bound = 3 * TROVE_BM25_SLIVER * (bm25.k1 + 1)
                let informative = expected.prefix { $0.score > bound }
                #expect(Array(capped.prefix(informative.count)) == Array(informative), "\(query) limit \(limit)")
                #expect(capped.allSatisfy { scores[$0.chunkID] == $0.score })
                #expect(capped.count <= informative.count + 50)
                #expect(capped.count == min(limit, informative.count + 50))
            }
        }
    }
}
