import Ollama
import OpenAICompatible
import TroveMiniLM
import TroveStore

/// Everything a front end decides before it opens an index: where it is and which model servers to use. The
/// front end resolves flags, environment and config file into this; TroveKit reads no environment of its own.
public struct TroveConfiguration: Sendable {
    /// Where the index lives: a SQLite file or a PostgreSQL schema (the facade's API does not change with the store).
    public var location: IndexLocation
    /// The Ollama server that embeds (for an index that records `ollama`) and writes answers.
    public var ollama: OllamaClient
    /// The OpenAI-compatible server (`--base-url`) for an index that records `openai`; nil when none is named.
    public var openAI: OpenAIClient?
    /// Which server writes answers: `.ollama` (the `ollama` client) or `.openai` (`chatServer`).
    public var chatProvider = Provider.ollama
    /// The OpenAI-compatible server for chat (`--chat-base-url`, else `--base-url`); nil when none is named. A front end
    /// may set it beside an Ollama chat provider too, to offer both (`trove web`'s model picker).
    public var chatServer: OpenAIClient?
    /// The folder holding the built-in model's files.
    public var modelFolder: String
    /// Worker threads of the built-in embedder; nil is one per CPU.
    public var embedThreads: Int?
    /// The argv that starts the extraction worker: `[trove's own path, "extract-worker"]`, set by the CLI; nil where
    /// there is none (a library user, the tests of TroveKit).
    package var extractionWorker: [String]?
    /// The built-in embedder's products for indexing batches (`TROVE_EMBED_PRECISION`); nil is this CPU's best.
    package var embedPrecision: EmbedPrecision?
    /// How the flat vector cache is read: `.map` except when `trove-bench cold` measures the others.
    package var vectorLoad = VectorLoadMode.map

    /// A configuration; `modelFolder` is where `trove models install builtin` puts the model (`defaultModelFolder`).
    public init(location: IndexLocation, ollama: OllamaClient, modelFolder: String, embedThreads: Int? = nil) {
        self.location = location
        self.ollama = ollama
        self.modelFolder = modelFolder
        self.embedThreads = embedThreads
    }

    /// The built-in model's folder for an environment (`TROVE_MODELS`, `XDG_DATA_HOME`, `HOME`), for front ends
    /// that follow the documented variables.
    public static func defaultModelFolder(environment: [String: String]) -> String {
        ModelFolder.resolve(environment: environment)
    }

    /// Where `trove models install builtin` installs: `$TROVE_MODELS/all-minilm-l6-v2`, else the user's folder.
    public static func userModelFolder(environment: [String: String]) -> String {
        if let root = environment["TROVE_MODELS"], !root.isEmpty { return ModelFolder.resolve(environment: environment) }
        return ModelFolder.userFolder(environment: environment)
    }

    /// The embedder `choice` names, against an index that may already record one (`indexed`). Without a provider
    /// or model in `choice`, an existing index keeps its own; a new one gets the defaults.
    public func embedder(_ choice: EmbedderChoice, indexed: IndexedEmbedder? = nil) throws -> any Embedder {
        let provider = choice.provider ?? indexed?.provider ?? choice.defaultProvider ?? .ollama
        let model =
            choice.model.flatMap { $0.isEmpty ? nil : $0 }
            ?? EmbedderFactory.defaultModel(
                provider: provider, indexed: indexed, ollamaDefault: choice.defaultOllamaModel)
        return try EmbedderFactory.make(
            provider: provider, model: model, client: ollama, modelFolder: modelFolder, threads: embedThreads,
            precision: embedPrecision, openAI: openAI)
    }
}

extension TroveConfiguration {
    /// The chat model `name` on `provider`'s server (nil: the configured chat provider).
    public func chatModel(named name: String, provider: Provider? = nil) throws -> any ChatModel {
        switch provider ?? chatProvider {
        case .ollama:
            return OllamaChatModel(client: ollama, name: name)
        case .openai:
            guard let chatServer else {
                throw EmbedderChoiceError(
                    "the openai chat provider needs a server — give --chat-base-url URL or --base-url URL (or "
                        + "OPENAI_BASE_URL, or base_url in the config file), e.g. --base-url http://127.0.0.1:8080/v1")
            }
            return OpenAIChatModel(client: chatServer, name: name)
        case .builtin:
            throw EmbedderChoiceError(
                "unknown chat provider '\(provider ?? chatProvider)' — use --chat-provider \(Provider.spelled(Provider.chatting))")
        }
    }
}

/// How the flat vector cache file is brought in (a benchmark switch: `trove search --vector-load`).
/// The built-in embedder's arithmetic for indexing batches: fp32, bf16 (AVX-512 BF16), int8 (AVX-512 VNNI)
/// or int16 (AVX2).
package typealias EmbedPrecision = TroveMiniLM.Precision
package typealias VectorLoadMode = VectorCache.LoadMode

/// Which embedder a front end asks for. Only indexing and `embed` choose; search always uses the one the index
/// records.
public struct EmbedderChoice: Sendable, Equatable {
    /// `--provider` (or `--embedder`); nil keeps the index's.
    public var provider: Provider?
    /// `--model`; nil keeps the index's (or the default for a new index).
    public var model: String?
    /// The provider for a new index when none is named (`TROVE_PROVIDER`, `TROVE_EMBEDDER`, the config file).
    public var defaultProvider: Provider?
    /// The Ollama model for a new index when none is named (`TROVE_EMBED_MODEL`, the config file, else
    /// `nomic-embed-text`).
    public var defaultOllamaModel: String

    /// A choice; all nil keeps whatever the index records.
    public init(
        provider: Provider? = nil, model: String? = nil, defaultProvider: Provider? = nil,
        defaultOllamaModel: String = EmbedderChoice.defaultOllamaModel
    ) {
        self.provider = provider
        self.model = model
        self.defaultProvider = defaultProvider
        self.defaultOllamaModel = defaultOllamaModel
    }

    /// The embedding model of a new Ollama index when none is named.
    public static let defaultOllamaModel = "nomic-embed-text"
}
