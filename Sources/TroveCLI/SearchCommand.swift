import Foundation
import TroveKit
import TroveStore

/// `trove search QUERY`: the passages that best match the query, by meaning and by keywords.
struct SearchCommand: Command {
    static let name = "search"
    static let abstract = "Find the passages that best match a query, by meaning and by keywords."
    static let usage = "trove search [options] QUERY…"
    static let details = """
        Prints the best documents first, one line each: path:start-end of its best passage, score, heading, then
        the lines of the passage that best match the query (query words in bold on a terminal).

        Ranking:
          --mode MODE         hybrid (default): meaning and keywords fused by Reciprocal Rank Fusion;
                              vector: meaning only (cosine similarity); keyword: words only (SQLite FTS5 BM25,
                              needs no Ollama)
          -n, --limit N       how many results (default 10)
          --all-chunks        list every matching passage, not only the best one of each document
          --min-score S       leave out passages whose cosine similarity is below S (-1…1; not with keyword)
          --int8              scan an int8 copy of the vectors, then rescore the best 100 exactly (faster on
                              large indexes when warm; recall@10 ≥ 0.99 measured, see BENCHMARKS.md)

        Filters (applied before ranking, so they never empty a list that has matches):
          --path GLOB         only documents whose path matches; repeatable. A glob without / matches the file
                              or any folder name (*.md, engineering); with / it matches from the indexed folder
                              (notes/retros, howto/*.rst, **/2024-*)
          --ext LIST          only these extensions, e.g. md,txt; repeatable
          --since DATE        only files modified at or after DATE: 2024-05-01, 2024-05-01T09:30, or 7d, 12h, 2w ago
          --before DATE       only files modified before DATE
          --root NAME         only documents of this indexed folder (its path or last name); repeatable

        Output:
          -l, --files         print only the paths of matching documents, best first (for xargs)
          --json              print {query, model, mode, hits:[{rank, path, start_line, end_line, heading, score, text}]}
          --jsonl             print one hit object per line
          --explain           add vector score (cosine), keyword score (BM25), their ranks and the fused score
          --model NAME        must match the model the index was built with (it is read from the index)
          --cold              search on its own even when a `trove serve` for the index is running
        \(CommonOptions.help)

        Scores: hybrid shows the fused score (1 = first in both rankings), vector the cosine similarity,
        keyword BM25.

        Examples:
          trove search "rotate the api key"
          trove search --json -n 5 "how do we restore a backup"
          trove search --ext md --since 30d -l "sourdough" | xargs $EDITOR
          trove search --mode keyword --explain "ProxyJump"
        """

    /// How results are printed.
    enum Format: Equatable { case text, files, json, jsonl }

    var common: CommonOptions
    var request: SearchRequest
    /// `-n`, when given; otherwise the config file's `search_limit`, else 10.
    var limitFlag: Int?
    var format = Format.text
    var explain: Bool
    var model: String?
    var cold: Bool

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        request = SearchRequest(query: "")
        limitFlag = try arguments.integer("-n", "--limit", minimum: 1)
        if let text = try arguments.value("--mode") {
            guard let mode = SearchMode(rawValue: text) else {
                throw UsageError("--mode expects hybrid, vector or keyword, got '\(text)'")
            }
            request.mode = mode
        }
        if let score = try arguments.cosine("--min-score") {
            guard request.mode != .keyword else {
                throw UsageError("--min-score is a cosine similarity: use it with --mode hybrid or vector")
            }
            request.minScore = score
        }
        request.groupByDocument = !arguments.flag("--all-chunks")
        request.quantized = arguments.flag("--int8")
        request.filter = try Self.filter(parsing: &arguments)
        let formats: [(Format, Bool)] = [
            (.files, arguments.flag("-l", "--files")), (.json, arguments.flag("--json")),
            (.jsonl, arguments.flag("--jsonl")),
        ]
        let chosen = formats.filter(\.1).map(\.0)
        guard chosen.count <= 1 else { throw UsageError("choose one of -l/--files, --json and --jsonl") }
        format = chosen.first ?? .text
        explain = arguments.flag("--explain")
        model = try arguments.value("--model")
        cold = arguments.flag("--cold")
        request.query = try arguments.positionals().joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !request.query.isEmpty else { throw UsageError("what should I search for? give a QUERY") }
    }

    private static func filter(parsing arguments: inout Arguments) throws -> SearchFilter {
        var filter = SearchFilter()
        filter.pathGlobs = try arguments.values("--path")
        filter.extensions = try arguments.values("--ext").flatMap { $0.split(separator: ",").map(String.init) }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        filter.roots = try arguments.values("--root")
        for (name, keyPath) in [("--since", \SearchFilter.modifiedSince), ("--before", \SearchFilter.modifiedBefore)] {
            guard let text = try arguments.value(name) else { continue }
            guard let time = SearchFilter.parseTime(text) else {
                throw UsageError(
                    "\(name) expects a date like 2024-05-01 or 2024-05-01T09:30, or an age like 7d, got '\(text)'")
            }
            filter[keyPath: keyPath] = time
        }
        return filter
    }

    /// The one place search (and `trove serve`) chooses its embedder: the one the index records, never another.
    /// Keyword mode needs none, so it gets a stand-in that is never called (and loads no model).
    static func embedder(_ settings: Settings, manifest: IndexManifest, mode: SearchMode) throws -> any Embedder {
        guard mode != .keyword else { return UnusedEmbedder(model: manifest.model) }
        return try settings.embedder(kindFlag: nil, modelFlag: nil, indexed: manifest)
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, environment: console.environment)
        var request = self.request
        request.limit = settings.searchLimit(flag: limitFlag)
        // A running `trove serve` answers without loading the vectors; anything unusual (no server, an error, no
        // hits to explain, a --model to check) goes the cold way, which also gives errors their exit codes.
        if !cold, model == nil, let answer = WarmSearch.ask(request, indexPath: settings.indexPath),
            let hits = answer.hits, let model = answer.model, !hits.isEmpty
        {
            try print(hits, model: model, console)
            return ExitCode.success
        }
        let store = try IndexStore(path: settings.indexPath, createIfMissing: false)
        let retriever = try Retriever(store: store)
        try retriever.checkRequestedModel(model)
        let hits: [SearchHit]
        do {
            hits = try await retriever.search(
                request, embedder: Self.embedder(settings, manifest: retriever.manifest, mode: request.mode))
        } catch let error as SearchFilterError {
            throw UsageError(error.message)
        }
        try print(hits, model: retriever.manifest.model, console)
        if hits.isEmpty { console.log(try emptyMessage(retriever)) }
        return ExitCode.success
    }

    private func print(_ hits: [SearchHit], model: String, _ console: Console) throws {
        let formatter = HitFormatter(
            query: request.query, color: console.usesColor, currentDirectory: FileManager.default.currentDirectoryPath,
            explain: explain)
        switch format {
        case .json:
            let result = SearchOutput(
                query: request.query, model: model, mode: request.mode.rawValue,
                hits: hits.map { SearchOutput.Hit($0, explain: explain) })
            console.print(try JSONOutput.encode(result))
        case .jsonl:
            for hit in hits { console.print(try JSONOutput.encode(SearchOutput.Hit(hit, explain: explain))) }
        case .files:
            var seen = Set<String>()
            for hit in hits where seen.insert(hit.path).inserted { console.print(formatter.displayPath(hit.path)) }
        case .text:
            for hit in hits { console.print(formatter.format(hit)) }
        }
    }

    /// Why nothing was found, in words.
    private func emptyMessage(_ retriever: Retriever) throws -> String {
        if try retriever.allowedChunkIDs(request.filter)?.isEmpty == true {
            return "no indexed document matches the filters"
        }
        if let minScore = request.minScore { return "no passage scored above \(minScore)" }
        return "no passage contains a word of the query — try --mode hybrid or vector"
    }
}

/// The `--json` shape of a search; each hit is also one `--jsonl` line.
struct SearchOutput: Encodable {
    var query: String
    var model: String
    var mode: String
    var hits: [Hit]

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

        init(_ hit: SearchHit, explain: Bool = false) {
            rank = hit.rank
            path = hit.path
            startLine = hit.startLine
            endLine = hit.endLine
            heading = hit.heading
            score = hit.score
            text = hit.text
            if explain {
                vectorScore = hit.vectorScore
                vectorRank = hit.vectorRank
                keywordScore = hit.keywordScore
                keywordRank = hit.keywordRank
                fusedScore = hit.fusedScore
            }
        }

        enum CodingKeys: String, CodingKey {
            case rank, path, heading, score, text
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

/// The embedder of a keyword search, which embeds nothing.
private struct UnusedEmbedder: Embedder {
    var model: String
    var kind: String { "none" }
    func inspect() async throws -> EmbedderInfo { EmbedderInfo(dimension: 0, contextLength: nil, digest: nil) }
    func embed(_ texts: [String]) async throws -> [[Float]] { [] }
}
