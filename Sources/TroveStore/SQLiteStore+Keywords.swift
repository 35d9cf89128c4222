import CSQLite
import CTroveFTS

/// Okapi BM25's parameters for the keyword ranking, computed by `trove_bm25` (Sources/CTroveFTS) from FTS5's own
/// statistics of passages: term frequency in the passage, passage length against the average, and IDF.
public struct BM25: Sendable, Hashable, Codable {
    /// Term-frequency saturation: how much a second, third … occurrence still adds.
    public var k1: Double
    /// Length normalisation, 0 (none) … 1 (full).
    public var b: Double
    /// How much a term in the passage's heading counts against one in its text (1).
    public var headingWeight: Double

    /// Parameters; the defaults are the ones the public test collections chose (BENCHMARKS.md#search-relevance).
    public init(
        k1: Double = BM25.defaultK1, b: Double = BM25.defaultB, headingWeight: Double = BM25.defaultHeadingWeight
    ) {
        self.k1 = k1
        self.b = b
        self.headingWeight = headingWeight
    }

    /// Chosen by the mean nDCG@10 of keyword ranking over the four public sets (`trove-bench relevance --suite
    /// --sweep`, BENCHMARKS.md#search-relevance): k1 1.2, b 0.5 was best alone and, in the chosen fusion, within 0.002
    /// of the best.
    public static let defaultK1 = 1.2
    /// Chosen with k1; SQLite's bm25() fixes 0.75, which was 0.008 lower on the mean.
    public static let defaultB = 0.5
    /// Not chosen: the public sets' passages have no headings, so it could not be measured there.
    public static let defaultHeadingWeight = 1.0
}

extension SQLiteStore {
    /// The `limit` chunks that best match `query` by BM25, best first (ties by chunk id), only among
    /// `allowedChunkIDs` when given (the restriction is part of the query, so a filter never shrinks the `limit`
    /// best matches that exist among the allowed chunks).
    ///
    /// Any user text is safe: each word becomes a quoted FTS5 string, and the words are OR-ed for recall. Words in
    /// Chinese, Japanese or Korean are looked up in `chunks_cjk` as their characters' bigrams; a passage's score is
    /// the sum of its scores in both tables, BM25 being a sum over query terms already.
    package func keywordSearch(
        _ query: String, limit: Int, allowedChunkIDs: [Int64]? = nil, bm25: BM25 = BM25()
    ) throws -> [KeywordHit] {
        guard limit > 0, allowedChunkIDs.map({ !$0.isEmpty }) ?? true else { return [] }
        let phrases = Self.ftsPhrases(query)
        let words = Self.or(phrases)
        let cjk = Self.cjkQuery(query)
        guard words != nil || cjk != nil else { return [] }
        // ?1 k1, ?2 b, ?3 heading weight, ?4 limit, ?5 allowed ids, ?6 and ?7 the two MATCH expressions.
        // `rowid IN` runs the MATCH once per allowed id, a few seeks each (the IDF is counted once, as
        // `trove_bm25_top` keeps it for the same query); for many ids one scan of the matches, filtered
        // (`+rowid`), costs less.
        let seeks = (allowedChunkIDs?.count ?? 0) <= Self.seekedRestriction
        let restriction =
            allowedChunkIDs == nil ? "" : " AND \(seeks ? "" : "+")rowid IN (SELECT value FROM json_each(?5))"
        if cjk == nil, allowedChunkIDs == nil || !seeks,
            let hits = try rankingPastCommonWords(
                phrases, limit: limit, restriction: restriction, allowedChunkIDs: allowedChunkIDs, bm25: bm25)
        {
            return hits
        }
        // One table alone is ranked with the limit known, so `trove_bm25_top` skips (scores NULL) the rows that
        // cannot reach the best `limit`: the same ranking, without looking up every matching row's length. Two
        // tables are summed per passage, so there a row's score in one table cannot rule it out.
        let single = (words == nil) != (cjk == nil)
        func leg(_ table: String, _ match: String) -> String {
            "SELECT rowid, \(Self.bm25Top(table, key: match, limit: single ? "?4" : "0")) "
                + "AS score FROM \(table) WHERE \(table) MATCH \(match)\(restriction)"
        }
        let legs = [words.map { _ in leg("chunks_fts", "?6") }, cjk.map { _ in leg("chunks_cjk", "?7") }]
            .compactMap { $0 }
        let sql =
            legs.count == 1
            ? legs[0] + " ORDER BY score DESC, rowid LIMIT ?4"
            : "SELECT rowid, sum(score) AS total FROM (\(legs.joined(separator: " UNION ALL "))) "
                + "GROUP BY rowid ORDER BY total DESC, rowid LIMIT ?4"
        return try keywordHits(sql, limit: limit, allowedChunkIDs: allowedChunkIDs, bm25: bm25) { statement in
            if let words { try statement.bind(words, at: 6) }
            if let cjk { try statement.bind(cjk, at: 7) }
        }
    }

    /// The (chunk id, score) rows of a keyword ranking statement whose parameters are ?1 k1, ?2 b, ?3 the heading
    /// weight, ?4 the limit and ?5 the allowed ids; `binding` binds the statement's others.
    func keywordHits(
        _ sql: String, limit: Int, allowedChunkIDs: [Int64]?, bm25: BM25, binding: (Statement) throws -> Void
    ) throws -> [KeywordHit] {
        try database.withStatement(sql) { statement in
            try statement.bind(bm25.k1, at: 1)
            try statement.bind(bm25.b, at: 2)
            try statement.bind(bm25.headingWeight, at: 3)
            try statement.bind(limit, at: 4)
            if let allowedChunkIDs { try statement.bind(Self.jsonList(allowedChunkIDs), at: 5) }
            try binding(statement)
            var hits: [KeywordHit] = []
            while try statement.step() {
                hits.append(KeywordHit(chunkID: statement.int64(0), score: statement.double(1)))
            }
            return hits
        }
    }

    /// Up to this many allowed ids are looked up one by one; more are filtered out of one scan of the matches.
    static let seekedRestriction = 256

    /// The FTS5 query for `chunks_fts`: each whitespace-separated word as a string literal (`"` doubled inside),
    /// joined by OR; nil when there are no words. Inside quotes FTS5 treats `*`, `:`, `-`, `(`, AND, NEAR as
    /// plain text for the tokenizer, so no input raises a syntax error. In a word with CJK characters only the
    /// pieces between them are kept (the characters go to `cjkQuery`).
    package static func ftsQuery(_ text: String) -> String? { or(ftsPhrases(text)) }

    /// The phrases of `ftsQuery`, each a quoted FTS5 string, in order (FTS5 numbers them so).
    static func ftsPhrases(_ text: String) -> [String] {
        words(text).flatMap { word in
            word.unicodeScalars.contains(where: isCJK) ? pieces(word, cjk: false) : [word]
        }
        // A word of punctuation only tokenizes to nothing; skip it rather than send an empty phrase.
        .filter { $0.contains(where: { $0.isLetter || $0.isNumber }) }
        .map(quoted)
    }

    /// `trove_bm25_top` over `table` with the statistics of the query `key` (an SQL expression), scoring `count`
    /// phrases from the `first`-th (0: all after it), with the statement's k1, b and heading weight (?1 … ?3).
    static func bm25Top(_ table: String, key: String, first: Int = 0, count: Int = 0, limit: String) -> String {
        "trove_bm25_top(\(table), '\(table)', \(key), \(first), \(count), \(limit), ?1, ?2, 1.0, ?3)"
    }

    /// The FTS5 query for `chunks_cjk`: each run of CJK characters as its bigrams (a lone character as itself),
    /// OR-ed, as `trove_cjk` indexed them; nil when the text has none.
    static func cjkQuery(_ text: String) -> String? {
        let terms = words(text).flatMap { pieces($0, cjk: true) }.flatMap { run -> [String] in
            let characters = Array(run.unicodeScalars)
            guard characters.count > 1 else { return [run] }
            return (0..<characters.count - 1).map { String(String.UnicodeScalarView(characters[$0...$0 + 1])) }
        }
        var seen = Set<String>()
        return or(terms.filter { seen.insert($0).inserted }.map(quoted))
    }

    /// The words of `text`, cut at whitespace and NUL on Unicode scalars: as Characters, a NUL or space followed by
    /// a combining mark would be one Character and stay inside a word.
    private static func words(_ text: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || scalar == "\u{0}" {
                if !word.isEmpty { words.append(String(word)) }
                word = String.UnicodeScalarView()
            } else {
                word.append(scalar)
            }
        }
        if !word.isEmpty { words.append(String(word)) }
        return words
    }

    /// The phrases joined by OR; nil when there are none.
    static func or(_ phrases: [String]) -> String? {
        guard !phrases.isEmpty else { return nil }
        return phrases.joined(separator: " OR ")
    }

    /// `word` as an FTS5 string literal, its quotes doubled scalar by scalar: `"` followed by a combining mark
    /// (U+059C) is one Character, which a Character-level replace misses, leaving SQLite an unterminated string
    /// (found by the fts5 fuzz target, FUZZING.md).
    private static func quoted(_ word: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append("\"")
        for scalar in word.unicodeScalars {
            scalars.append(scalar)
            if scalar == "\"" { scalars.append(scalar) }
        }
        scalars.append("\"")
        return String(scalars)
    }

    /// The maximal runs of `word`'s scalars that are (`cjk`) or are not CJK.
    private static func pieces(_ word: String, cjk: Bool) -> [String] {
        var runs: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in word.unicodeScalars {
            if isCJK(scalar) == cjk {
                current.append(scalar)
            } else if !current.isEmpty {
                runs.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { runs.append(String(current)) }
        return runs
    }

    private static func isCJK(_ scalar: Unicode.Scalar) -> Bool { trove_is_cjk(scalar.value) != 0 }
}

extension String {
    /// `self` with every `target` replaced, without Foundation.
    fileprivate func replacingOccurrences(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
