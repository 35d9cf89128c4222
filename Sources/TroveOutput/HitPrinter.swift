import TroveKit

/// What `trove search` writes to stdout for its hits, in the format and manner `style` says: made by the search
/// itself, or for it by a running `trove serve`, byte for byte the same.
package struct HitPrinter {
    /// How the hits are printed.
    package var style: OutputStyle
    /// The search that found them (its query is highlighted; `--explain` prints its ranking).
    package var request: SearchRequest

    /// A printer of `request`'s hits in `style`.
    package init(_ style: OutputStyle, request: SearchRequest) {
        self.style = style
        self.request = request
    }

    /// The whole output for `hits`, found with the embedding model `model`.
    package func output(_ hits: [SearchHit], model: String) throws -> String {
        let explain = style.explain
        let formatter = HitFormatter(
            query: request.query, color: style.color, currentDirectory: style.currentDirectory,
            explain: explain, escapeControls: style.escapeControls)
        switch style.format {
        case .json:
            var result = SearchOutput(
                query: request.query, model: model, mode: request.mode.rawValue,
                hits: hits.map { SearchOutput.Hit($0, explain: explain) })
            if explain { result.ranking = Self.rankingLine(request) }
            return try JSONOutput.encode(result) + "\n"
        case .jsonl:
            return try hits.map { try JSONOutput.encode(SearchOutput.Hit($0, explain: explain)) + "\n" }.joined()
        case .files:
            var seen = Set<String>()
            return hits.filter { seen.insert($0.path).inserted }
                .map { formatter.displayPath($0.path) + (style.nullTerminated ? "\u{0}" : "\n") }.joined()
        case .text:
            let ranking = explain ? [Self.rankingLine(request) + "\n"] : []
            return (ranking + hits.map { formatter.format($0) + "\n" }).joined()
        }
    }

    /// The `--explain` header: the ranking's method and every parameter in force.
    package static func rankingLine(_ request: SearchRequest) -> String {
        let bm25 =
            "BM25 k1 \(request.bm25.k1.plainText), b \(request.bm25.b.plainText), "
            + "heading \(request.bm25.headingWeight.plainText)"
        switch request.mode {
        case .vector: return "ranking: vector (cosine similarity)"
        case .keyword: return "ranking: keyword, \(bm25)"
        case .hybrid:
            let method =
                request.fusion == .rrf
                ? "rrf, constant \(request.fusionConstant.plainText)"
                : "convex, \(request.normalization.rawValue) normalisation"
            let scale = request.fusion == .convex ? ", scale from the best \(request.scaleDepth)" : ""
            return "ranking: hybrid, \(method), keyword weight \(request.keywordWeight.plainText), depth "
                + "\(request.candidateDepth)\(scale), \(bm25)"
        }
    }
}
