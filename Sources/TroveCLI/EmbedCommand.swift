import Foundation
import TroveKit
import TroveOutput

/// `trove embed TEXT…`: one JSON line per text with its vector, for scripts and for comparing embedders.
struct EmbedCommand: Command {
    static let name = "embed"
    static let abstract = "Print the embedding vector of each TEXT as one JSON line."
    static let usage = "trove embed [options] TEXT…"
    static let discussion = """
        Prints {"embedder", "model", "text", "vector"} per TEXT, in order. Vectors have unit length.
        """
    static let optionGroups = [OptionGroup("Options", [provider, embedder, model] + CommonOptions.options)]
    static let epilogue = """
        Examples:
          trove embed --embedder builtin "why is the sky blue?"
          trove embed --embedder ollama --model all-minilm "why is the sky blue?"
        """

    static let provider = Option(
        "--provider", value: "KIND", IndexingOptions.provider.value, help: "what embeds the text",
        default: "$TROVE_PROVIDER, else ollama")
    static let embedder = Option(
        "--embedder", value: "KIND", IndexingOptions.embedder.value, help: "what embeds the text",
        default: "$TROVE_EMBEDDER, else ollama")
    static let model = Option(
        "--model", value: "NAME", help: "embedding model",
        default: "builtin's all-minilm-l6-v2, else $TROVE_EMBED_MODEL, else nomic-embed-text")

    var common: CommonOptions
    var provider: Provider?
    var model: String?
    var texts: [String]

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        provider = arguments.choice(Self.provider, as: Provider.self) ?? arguments.choice(Self.embedder, as: Provider.self)
        model = arguments.value(Self.model)
        texts = arguments.operands
        guard !texts.isEmpty else { throw UsageError("what should I embed? give one or more TEXT arguments") }
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, console: console)
        let embedder = try settings.embedder(provider: provider, modelFlag: model)
        let vectors = try await embedder.embed(texts)
        for (text, vector) in zip(texts, vectors) {
            let line = Line(embedder: embedder.provider.rawValue, model: embedder.model, text: text, vector: vector)
            console.print(try JSONOutput.encode(line))
        }
        return ExitCode.success
    }

    /// One output line.
    struct Line: Encodable {
        var embedder: String
        var model: String
        var text: String
        var vector: [Float]
    }
}
