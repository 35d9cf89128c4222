import Foundation
import TroveIngest

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
    /// Pages (slides, messages, cells) of the original the passage lies on, for a document read by an extractor
    /// (PDF, DOCX, …); nil for text files, whose lines are the document's own.
    public var locator: PassageLocator? = nil
    /// In an HTML page, the `id` of the nearest heading above the passage that has one; nil elsewhere.
    public var anchor: String? = nil

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

    /// `file:///abs/path`, with the locator as a fragment (`#page=4`, `#slide=3`, `#msg=42`, `#cell=7`) that PDF
    /// viewers and browsers open at, or in an HTML page its heading's id (`#locking`).
    public var uri: String {
        let url = URL(fileURLWithPath: path)
        let fragment =
            locator.map(\.fragment)
            ?? anchor.flatMap { $0.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) }
        return url.absoluteString + (fragment.map { "#" + $0 } ?? "")
    }
}
