import Foundation
import TroveKit
import TroveStore

/// `trove search QUERY`: the passages closest in meaning to the query.
struct SearchCommand: Command {
    static let name = "search"
    static let abstract = "Find the passages that best match a query, by meaning."
    static let usage = "trove search [options] QUERY…"
    static let details = """
        Prints the best passages first: path:start-end, score (cosine similarity, higher is better), heading,
        and the lines of the passage that best match the query.

        Options:
          -n, --limit N       how many passages (default 10)
          --min-score S       leave out passages scoring below S (-1…1)
          --json              print {query, model, hits:[{rank, path, start_line, end_line, heading, score, text}]}
          --model NAME        must match the model the index was built with (it is read from the index)
        \(CommonOptions.help)

        Examples:
          trove search "rotate the api key"
          trove search --json -n 5 "how do we restore a backup"
        """

    var common: CommonOptions
    var limit = 10
    var minScore: Float = -1
    var json: Bool
    var model: String?
    var query: String

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        if let limit = try arguments.integer("-n", "--limit", minimum: 1) { self.limit = limit }
        if let text = try arguments.value("--min-score") {
            guard let score = Float(text), score >= -1, score <= 1 else {
                throw UsageError("--min-score expects a number from -1 to 1, got '\(text)'")
            }
            minScore = score
        }
        json = arguments.flag("--json")
        model = try arguments.value("--model")
        query = try arguments.positionals().joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { throw UsageError("what should I search for? give a QUERY") }
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, environment: console.environment)
        let store = try IndexStore(path: settings.indexPath, createIfMissing: false)
        let retriever = try Retriever(store: store)
        try retriever.checkRequestedModel(model)
        // The embedder the index records, never another.
        let embedder = try settings.embedder(kindFlag: nil, modelFlag: nil, indexed: retriever.manifest)
        let hits = try await retriever.search(query: query, embedder: embedder, limit: limit, minScore: minScore)
        if json {
            let result = SearchOutput(query: query, model: retriever.manifest.model, hits: hits.map(SearchOutput.Hit.init))
            console.print(try JSONOutput.encode(result))
        } else if hits.isEmpty {
            console.log("no passage scored above \(minScore)")
        } else {
            let formatter = HitFormatter(
                query: query, color: console.usesColor,
                currentDirectory: FileManager.default.currentDirectoryPath)
            for hit in hits { console.print(formatter.format(hit)) }
        }
        return ExitCode.success
    }
}

/// The `--json` shape of a search.
struct SearchOutput: Encodable {
    var query: String
    var model: String
    var hits: [Hit]

    struct Hit: Encodable {
        var rank: Int
        var path: String
        var startLine: Int
        var endLine: Int
        var heading: String
        var score: Float
        var text: String

        init(_ hit: SearchHit) {
            rank = hit.rank
            path = hit.path
            startLine = hit.startLine
            endLine = hit.endLine
            heading = hit.heading
            score = hit.score
            text = hit.text
        }

        enum CodingKeys: String, CodingKey {
            case rank, path, heading, score, text
            case startLine = "start_line"
            case endLine = "end_line"
        }
    }
}
