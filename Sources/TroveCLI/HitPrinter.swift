import TroveKit

/// What `trove search` writes to stdout for its hits, in the format and manner `printing` says: made by the search
/// itself, or for it by a running `trove serve` (`WarmSearch.Printing`), byte for byte the same.
struct HitPrinter {
    var printing: WarmSearch.Printing
    var request: SearchRequest

    init(_ printing: WarmSearch.Printing, request: SearchRequest) {
        self.printing = printing
        self.request = request
    }

    func output(_ hits: [SearchHit], model: String) throws -> String {
        let explain = printing.explain
        let formatter = HitFormatter(
            query: request.query, color: printing.color, currentDirectory: printing.currentDirectory,
            explain: explain, escapeControls: printing.escapeControls)
        switch printing.format {
        case .json:
            var result = SearchOutput(
                query: request.query, model: model, mode: request.mode.rawValue,
                hits: hits.map { SearchOutput.Hit($0, explain: explain) })
            if explain { result.ranking = SearchCommand.rankingLine(request) }
            return try JSONOutput.encode(result) + "\n"
        case .jsonl:
            return try hits.map { try JSONOutput.encode(SearchOutput.Hit($0, explain: explain)) + "\n" }.joined()
        case .files:
            var seen = Set<String>()
            return hits.filter { seen.insert($0.path).inserted }
                .map { formatter.displayPath($0.path) + (printing.nullTerminated ? "\u{0}" : "\n") }.joined()
        case .text:
            let ranking = explain ? [SearchCommand.rankingLine(request) + "\n"] : []
            return (ranking + hits.map { formatter.format($0) + "\n" }).joined()
        }
    }
}
