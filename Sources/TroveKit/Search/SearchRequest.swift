import TroveSearch
import TroveStore

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
    /// How the vector ranking scans the vectors: exact, the int8 copy with exact rescoring, or (the default) the
    /// int8 copy where it saves CPU.
    public var scan = VectorScan.automatic

    /// A request; defaults are the measured ones (see BENCHMARKS.md#search-relevance).
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
    /// below its reference RRF and the Corpora queries' nDCG@10 at 0.85 or more (BENCHMARKS.md#search-relevance).
    public static let defaultCandidateDepth = 200
    /// Convex z-score fusion was the best admissible family; every RRF variant dropped the Corpora guard to ≤ 0.68.
    public static let defaultFusion = FusionMethod.convex
    /// Used with `--fusion rrf` only: the literature's (and the reference baseline's) constant, not tuned.
    public static let defaultFusionConstant = 60.0
    /// Chosen with the fusion (BENCHMARKS.md#search-relevance).
    public static let defaultKeywordWeight = 1.0
    /// Chosen with the depth: each ranking's scale from its best 100 (the depth the z-score fusion was first
    /// chosen at) while candidates come from 200, so a document deep in one ranking gets its own low score, not the
    /// ranking's floor; the Corpora guard, whose 276 passages a deeper scale would cover whole, stays at 0.8531.
    public static let defaultScaleDepth = 100
    /// BM25 in hybrid mode, chosen with the fusion: the reference's k1 0.9, b 0.4 (Anserini's) fused best; alone,
    /// keyword mode keeps `BM25()` (k1 1.2, b 0.5), which ranks best by itself (BENCHMARKS.md#search-relevance).
    public static let defaultHybridBM25 = BM25(k1: 0.9, b: 0.4, headingWeight: BM25.defaultHeadingWeight)
    /// Chosen with the fusion: z-score kept the Corpora guard at 0.85, min-max dropped it to 0.68
    /// (BENCHMARKS.md#search-relevance).
    public static let defaultNormalization = ScoreFusion.Normalization.zScore
    /// Measured, not chosen: reducing each ranking to documents first did not beat the best passage
    /// (BENCHMARKS.md#search-relevance).
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

extension SearchRequest {
    /// How convex fusion normalises scores (`minmax`, `zscore`).
    public typealias Normalization = ScoreFusion.Normalization
    /// BM25's parameters (k1, b, heading weight).
    public typealias BM25 = TroveStore.BM25
}
