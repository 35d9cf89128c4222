import TroveKit
import TroveSystem

/// The `--json` shape of a search; each hit is also one `--jsonl` line.
struct SearchOutput: Encodable {
    /// The query searched for.
    var query: String
    /// The index's embedding model.
    var model: String
    /// `hybrid`, `vector` or `keyword`.
    var mode: String
    /// With --explain: the ranking's method and parameters.
    var ranking: String?
    /// The hits, best first.
    var hits: [Hit]

    /// One hit as a script reads it.
    struct Hit: Encodable {
        var rank: Int
        var path: String
        var startLine: Int
        var endLine: Int
        var heading: String
        var score: Float
        var text: String
        var vectorScore: Float?
        var vectorRank: Int?
        var keywordScore: Double?
        var keywordRank: Int?
        var fusedScore: Double?
        /// `file:///…`, with `#page=4` (`#slide=`, `#msg=`, `#cell=`) for a passage of an extracted document.
        var uri: String
        /// Where the passage is in the original, for an extracted document.
        var locator: JSON?

        /// `hit`, with its scores and ranks when `explain`.
        init(_ hit: SearchHit, explain: Bool = false) {
            rank = hit.rank
            path = hit.path
            uri = hit.uri
            locator = hit.locator.map(LocatorOutput.json)
            startLine = hit.startLine
            endLine = hit.endLine
            heading = hit.heading
            score = hit.score
            text = hit.text
            // Hybrid hits always carry both scores, so a script can threshold on either.
            if explain || hit.fusedScore != nil {
                vectorScore = hit.vectorScore
                keywordScore = hit.keywordScore
            }
            if explain {
                vectorRank = hit.vectorRank
                keywordRank = hit.keywordRank
                fusedScore = hit.fusedScore
            }
        }

        enum CodingKeys: String, CodingKey {
            case rank, path, heading, score, text, uri, locator
            case startLine = "start_line"
            case endLine = "end_line"
            case vectorScore = "vector_score"
            case vectorRank = "vector_rank"
            case keywordScore = "keyword_score"
            case keywordRank = "keyword_rank"
            case fusedScore = "fused_score"
        }
    }
}
