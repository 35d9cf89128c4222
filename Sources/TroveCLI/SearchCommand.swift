import Foundation
import TroveKit
import TroveOutput
import TroveServe

/// `trove search QUERY`: the passages that best match the query, by meaning and by keywords.
struct SearchCommand: Command {
    static let name = "search"
    static let abstract = "Find the passages that best match a query, by meaning and by keywords."
    static let usage = "trove search [options] QUERY…"
    static let discussion = """
        Prints the best documents first, one line each: path:start-end of its best passage, score, heading, then
        the lines of the passage that best match the query (query words in bold on a terminal).
        """
    static let optionGroups = [
        OptionGroup("Ranking", [mode, limit, allChunks, minScore, int8, exact]),
        OptionGroup(
            "Fusion and keywords (defaults chosen on four public test collections, see BENCHMARKS.md)",
            [fusion, keywordWeight, rrfConstant, normalization, depth, scaleDepth, bm25K1, bm25B, headingWeight]),
        OptionGroup("Filters (applied before ranking, so they never empty a list that has matches)", [path, ext, since, before, root]),
        OptionGroup("Output", [files, null, json, jsonl, explain, model, cold, vectorLoad] + CommonOptions.options),
    ]
    static let epilogue = """
        Scores: hybrid shows the fused score (convex zscore: standard deviations above the candidates' mean,
        averaged over the two rankings; rrf: 1 = first in both), vector the cosine similarity, keyword BM25.
        --min-score is always a cosine threshold.

        Examples:
          trove search "rotate the api key"
          trove search --json -n 5 "how do we restore a backup"
          trove search --ext md --since 30d -l0 "sourdough" | xargs -0 $EDITOR
          trove search --mode keyword --explain "ProxyJump"
        """

    static let mode = Option(
        "--mode", value: "MODE",
        .choice([
            Option.Choice("hybrid", "meaning and keywords fused (see --fusion)"),
            Option.Choice("vector", "meaning only (cosine similarity)"),
            Option.Choice(
                "keyword", "words only (BM25 over SQLite FTS5, words in Chinese, Japanese and Korean too; needs no Ollama)"),
        ]), help: "how to rank", default: "hybrid")
    static let limit = Option(
        "--limit", short: "-n", value: "N", .integer(min: 1), help: "how many results",
        default: "the config file's search_limit, else 10")
    static let allChunks = Option(
        "--all-chunks", help: "list every matching passage, not only the best one of each document")
    static let minScore = Option(
        "--min-score", value: "S", .number(-1...1),
        help: "leave out passages whose cosine similarity is below S (not with --mode keyword)")
    static let int8 = Option(
        "--int8",
        help: "always scan an int8 copy of the vectors, then rescore the best candidates exactly (the default on an "
            + "index of 30,000+ passages kept loaded by trove serve, mcp or web; see GUIDE.md)")
    static let exact = Option("--exact", help: "always scan the vectors exactly, never the int8 copy")
    static let fusion = Option(
        "--fusion", value: "METHOD",
        .choice([
            Option.Choice("rrf", "Reciprocal Rank Fusion, by rank: w / (c + rank)"),
            Option.Choice("convex", "the normalised scores combined, (vector + w × keyword) / (1 + w)"),
        ]), help: "how hybrid mode fuses the two rankings", default: SearchRequest.defaultFusion.rawValue)
    static let keywordWeight = Option(
        "--keyword-weight", value: "W", .number(0...Double.infinity),
        help: "the keyword ranking's weight, the vector ranking's being 1",
        default: SearchRequest.defaultKeywordWeight.plainText)
    static let rrfConstant = Option(
        "--rrf-constant", value: "C", .number(0...Double.infinity),
        help: "the constant c of rrf: larger flattens the top ranks' advantage",
        default: SearchRequest.defaultFusionConstant.plainText)
    static let normalization = Option(
        "--normalization", value: "N",
        .choice(SearchRequest.Normalization.allCases.map { Option.Choice($0.rawValue) }),
        help: "how convex brings scores to one scale", default: SearchRequest.defaultNormalization.rawValue)
    static let depth = Option(
        "--depth", value: "N", .integer(min: 1), help: "candidates taken from each ranking before fusing",
        default: String(SearchRequest.defaultCandidateDepth))
    static let scaleDepth = Option(
        "--scale-depth", value: "N", .integer(min: 1),
        help: "convex takes each ranking's scale from its best N candidates, however deep --depth goes",
        default: String(SearchRequest.defaultScaleDepth))
    static let bm25K1 = Option(
        "--bm25-k1", value: "K", .number(0...Double.infinity), help: "BM25 term-frequency saturation",
        default: "\(SearchRequest.BM25.defaultK1.plainText) (keyword), "
            + "\(SearchRequest.defaultHybridBM25.k1.plainText) (hybrid)")
    static let bm25B = Option(
        "--bm25-b", value: "B", .number(0...1), help: "BM25 length normalisation",
        default: "\(SearchRequest.BM25.defaultB.plainText) (keyword), "
            + "\(SearchRequest.defaultHybridBM25.b.plainText) (hybrid)")
    static let headingWeight = Option(
        "--heading-weight", value: "H", .number(0...Double.infinity),
        help: "a word in a passage's heading counts H times one in its text",
        default: SearchRequest.BM25.defaultHeadingWeight.plainText)
    static let path = Option(
        "--path", value: "GLOB",
        help: "only documents whose path matches. A glob without / matches the file or any folder name (*.md, "
            + "engineering); with / it matches from the indexed folder (notes/retros, howto/*.rst, **/2024-*)",
        repeatable: true)
    static let ext = Option("--ext", value: "LIST", help: "only these extensions, e.g. md,txt", repeatable: true)
    static let since = Option(
        "--since", value: "DATE",
        help: "only files modified at or after DATE: 2024-05-01, 2024-05-01T09:30, or 7d, 12h, 2w ago")
    static let before = Option("--before", value: "DATE", help: "only files modified before DATE")
    static let root = Option(
        "--root", value: "NAME", help: "only documents of this indexed folder (its path or last name)",
        repeatable: true)
    static let files = Option(
        "--files", short: "-l", help: "print only the paths of matching documents, best first (for xargs)")
    static let null = Option(
        "--null", short: "-0",
        help: "with -l: end each path with a NUL byte instead of a newline, for xargs -0 (paths may hold newlines)")
    static let json = Option(
        "--json",
        help: "print {query, model, mode, hits:[{rank, path, start_line, end_line, heading, score, text}]}; in hybrid "
            + "mode each hit also has vector_score (cosine) and keyword_score (BM25, 0 when no query word occurs in it)")
    static let jsonl = Option("--jsonl", help: "print one hit object per line")
    static let explain = Option(
        "--explain",
        help: "add vector score (cosine), keyword score (BM25), their ranks and the fused score, and a first line "
            + "with the ranking's method and parameters")
    static let model = Option(
        "--model", value: "NAME", help: "must match the model the index was built with (it is read from the index)")
    static let cold = Option(
        "--cold", help: "search on its own even when a `trove serve` for the index is running")
    /// For `trove-bench cold`: how the flat vector cache is brought in.
    static let vectorLoad = Option(
        "--vector-load", value: "HOW", .choice(VectorLoadMode.allCases.map { Option.Choice($0.rawValue) }),
        help: "how the vector cache is read", hidden: true)

    /// How results are printed.
    typealias Format = OutputStyle.Format

    var common: CommonOptions
    var request: SearchRequest
    /// `-n`, when given; otherwise the config file's `search_limit`, else 10.
    var limitFlag: Int?
    var format = Format.text
    /// `-0`: file names end with NUL.
    var nullTerminated: Bool
    var explain: Bool
    var model: String?
    var cold: Bool
    var vectorLoad: VectorLoadMode

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        request = SearchRequest(query: "")
        limitFlag = arguments.integer(Self.limit)
        request.mode = arguments.choice(Self.mode, as: SearchMode.self) ?? request.mode
        if let score = arguments.number(Self.minScore) {
            guard request.mode != .keyword else {
                throw UsageError("--min-score is a cosine similarity: use it with --mode hybrid or vector")
            }
            request.minScore = Float(score)
        }
        Self.ranking(parsing: arguments, into: &request)
        request.groupByDocument = !arguments.flag(Self.allChunks)
        request.scan = try Self.scan(parsing: arguments)
        request.filter = try Self.filter(parsing: &arguments)
        let formats: [(Format, Bool)] = [
            (.files, arguments.flag(Self.files)), (.json, arguments.flag(Self.json)),
            (.jsonl, arguments.flag(Self.jsonl)),
        ]
        let chosen = formats.filter(\.1).map(\.0)
        guard chosen.count <= 1 else { throw UsageError("choose one of -l/--files, --json and --jsonl") }
        format = chosen.first ?? .text
        nullTerminated = arguments.flag(Self.null)
        if nullTerminated && format != .files { throw UsageError("-0/--null goes with -l/--files") }
        explain = arguments.flag(Self.explain)
        model = arguments.value(Self.model)
        cold = arguments.flag(Self.cold)
        vectorLoad = arguments.choice(Self.vectorLoad, as: VectorLoadMode.self) ?? .map
        request.query = arguments.operands.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !request.query.isEmpty else { throw UsageError("what should I search for? give a QUERY") }
    }

    /// `--int8` or `--exact`, else automatic.
    static func scan(parsing arguments: Arguments) throws -> VectorScan {
        switch (arguments.flag(Self.int8), arguments.flag(Self.exact)) {
        case (true, true): throw UsageError("choose one of --int8 and --exact")
        case (true, false): .int8
        case (false, true): .exact
        case (false, false): .automatic
        }
    }

    /// The fusion and BM25 options (their values are checked by the declarations).
    private static func ranking(parsing arguments: Arguments, into request: inout SearchRequest) {
        request.fusion = arguments.choice(Self.fusion, as: FusionMethod.self) ?? request.fusion
        request.normalization = arguments.choice(Self.normalization, as: SearchRequest.Normalization.self)
            ?? request.normalization
        request.keywordWeight = arguments.number(Self.keywordWeight) ?? request.keywordWeight
        request.fusionConstant = arguments.number(Self.rrfConstant) ?? request.fusionConstant
        request.candidateDepth = arguments.integer(Self.depth) ?? request.candidateDepth
        request.scaleDepth = arguments.integer(Self.scaleDepth) ?? request.scaleDepth
        request.bm25.k1 = arguments.number(Self.bm25K1) ?? request.bm25.k1
        request.bm25.b = arguments.number(Self.bm25B) ?? request.bm25.b
        request.bm25.headingWeight = arguments.number(Self.headingWeight) ?? request.bm25.headingWeight
    }

    private static func filter(parsing arguments: inout Arguments) throws -> SearchFilter {
        var filter = SearchFilter()
        filter.pathGlobs = arguments.values(Self.path)
        filter.extensions = arguments.values(Self.ext).flatMap { $0.split(separator: ",").map(String.init) }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        filter.roots = arguments.values(Self.root)
        for (option, keyPath) in [(Self.since, \SearchFilter.modifiedSince), (Self.before, \SearchFilter.modifiedBefore)] {
            let name = option.long
            guard let text = arguments.value(option) else { continue }
            guard let time = SearchFilter.parseTime(text) else {
                throw UsageError(
                    "\(name) expects a date like 2024-05-01 or 2024-05-01T09:30, or an age like 7d, got '\(text)'")
            }
            filter[keyPath: keyPath] = time
        }
        return filter
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, console: console)
        var request = self.request
        request.limit = settings.searchLimit(flag: limitFlag)
        // A running `trove serve` answers without loading the vectors, and prints the hits as this process would;
        // anything unusual (no server, an error, no hits to explain, a --model to check) goes the cold way, which
        // also gives errors their exit codes.
        if !cold, model == nil, vectorLoad == .map,
            let answer = SearchServer.ask(
                request, style: style(console), location: settings.location,
                admission: settings.servingAdmission, warn: console.log),
            let output = answer.output, let count = answer.count, count > 0
        {
            console.output.write(output)
            return ExitCode.success
        }
        // The index's own embedder, never another; keyword mode does not call it (and loads no model).
        var configuration = try settings.configuration
        configuration.vectorLoad = vectorLoad
        let index = try TroveIndex(opening: configuration)
        try await index.checkRequestedModel(model)
        // A filter or parameter the index refuses is a usage fault (exit 64, with the usage line).
        let hits = try await index.search(request)
        try print(hits, model: try await index.embeddingModel() ?? "", console)
        if hits.isEmpty { console.log(try await emptyMessage(index)) }
        return ExitCode.success
    }

    private func print(_ hits: [SearchHit], model: String, _ console: Console) throws {
        console.output.write(try HitPrinter(style(console), request: request).output(hits, model: model))
    }

    /// How this process prints hits, for `HitPrinter` here or in a running `trove serve`.
    private func style(_ console: Console) -> OutputStyle {
        OutputStyle(
            format: format, color: console.usesColor, escapeControls: console.output.isTerminal, explain: explain,
            nullTerminated: nullTerminated, currentDirectory: FileManager.default.currentDirectoryPath)
    }

    /// Why nothing was found, in words.
    private func emptyMessage(_ index: TroveIndex) async throws -> String {
        if try await !index.anyDocumentMatches(request.filter) {
            return "no indexed document matches the filters"
        }
        if let minScore = request.minScore { return "no passage scored above \(minScore)" }
        return "no passage contains a word of the query — try --mode hybrid or vector"
    }
}
