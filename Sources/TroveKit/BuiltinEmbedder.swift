import Dispatch
import Ollama
import OpenAICompatible
import Synchronization
import TroveMiniLM

/// Embeds in-process with all-MiniLM-L6-v2 on OpenBLAS: no server. Same vectors as Ollama's `all-minilm`.
public struct BuiltinEmbedder: Embedder {
    /// The one model the built-in embedder runs, as recorded in the index.
    public static let modelName = "all-minilm-l6-v2"
    /// SHA-256 of `model.safetensors`, recorded as the index's digest.
    public static let digest = "sha256:53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

    public var provider: Provider { .builtin }
    public var model: String { Self.modelName }
    /// The folder holding `model.safetensors` and `vocab.txt`.
    public let folder: String
    /// Worker threads per batch (each runs single-threaded BLAS).
    public var threads: Int
    private let loader: Loader

    /// An embedder for the model in `folder`; the files are read on first use, so an index mismatch is reported
    /// before a missing model. A missing file is an error naming `Scripts/install-model.sh`.
    public init(folder: String, threads: Int = MiniLM.defaultThreads) {
        self.folder = folder
        self.threads = threads
        loader = Loader.shared(folder: folder)
    }

    /// The encoder, loaded once.
    public func encoder() throws -> MiniLM { try loader.load() }

    public func inspect() async throws -> EmbedderInfo {
        _ = try encoder()
        return EmbedderInfo(dimension: MiniLM.dimension, contextLength: MiniLM.contextLength, digest: Self.digest)
    }

    public func embed(_ texts: [String]) async throws -> [[Float]] {
        guard !texts.isEmpty else { return [] }
        let encoder = try encoder()
        let threads = threads
        // Seconds of BLAS work must not hold a thread of the cooperative pool.
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: encoder.embed(texts, threads: threads))
            }
        }
    }

    /// Loads the model of one folder once per process: every embedder of that folder (one per `trove serve`
    /// request, say) shares the encoder and its mapped weights.
    private final class Loader: Sendable {
        let folder: String
        let loaded = Mutex<MiniLM?>(nil)
        private init(folder: String) { self.folder = folder }

        private static let loaders = Mutex<[String: Loader]>([:])

        /// The process's loader for `folder`.
        static func shared(folder: String) -> Loader {
            loaders.withLock { loaders in
                if let loader = loaders[folder] { return loader }
                let loader = Loader(folder: folder)
                loaders[folder] = loader
                return loader
            }
        }

        func load() throws -> MiniLM {
            try loaded.withLock { model in
                if let model { return model }
                let fresh = try MiniLM(folder: folder)
                // The weights cache hashes the file once when it is built, so this check is free on later loads.
                if let sha256 = fresh.modelSHA256, "sha256:" + sha256 != BuiltinEmbedder.digest {
                    throw MiniLMError(
                        .badFile,
                        "\(folder)/model.safetensors is not the all-MiniLM-L6-v2 release Trove runs (SHA-256 \(sha256)) "
                            + "— reinstall the model: Scripts/install-model.sh")
                }
                model = fresh
                return fresh
            }
        }
    }
}

/// Builds the embedder an index names: a provider with a model.
public enum EmbedderFactory {
    /// Parses a user-given provider (`--provider`, `TROVE_PROVIDER`); nil when none was given.
    public static func provider(_ value: String?) throws -> Provider? {
        guard let value, !value.isEmpty else { return nil }
        guard let provider = Provider(rawValue: value) else {
            throw EmbedderChoiceError("unknown embedder '\(value)' — use --provider \(Provider.spelled())")
        }
        return provider
    }

    /// Ollama's name of the built-in model's weights.
    static let ollamaMiniLM = "all-minilm"

    /// The model to use with `provider` when none is named: the index's own (or its equivalent), else the default.
    public static func defaultModel(provider: Provider, indexed: IndexedEmbedder?, ollamaDefault: String) -> String {
        let miniLM = provider == .builtin ? BuiltinEmbedder.modelName : ollamaMiniLM
        if let indexed {
            if indexed.provider == provider { return indexed.model }
            if sameModelName(indexed.provider, indexed.model, provider, miniLM) { return miniLM }
        }
        return provider == .builtin ? BuiltinEmbedder.modelName : ollamaDefault
    }

    /// Makes the embedder; `builtin` only runs `all-minilm-l6-v2` and needs its files in `modelFolder`.
    public static func make(
        provider: Provider, model: String, client: OllamaClient, modelFolder: String, threads: Int? = nil,
        openAI: OpenAIClient? = nil
    ) throws -> any Embedder {
        switch provider {
        case .builtin:
            guard model == BuiltinEmbedder.modelName || sameModelName(.builtin, BuiltinEmbedder.modelName, .ollama, model)
            else {
                throw EmbedderChoiceError(
                    "the builtin embedder runs only \(BuiltinEmbedder.modelName), not '\(model)' — "
                        + "use --embedder \(Provider.ollama) --model \(model)")
            }
            return BuiltinEmbedder(folder: modelFolder, threads: threads ?? MiniLM.defaultThreads)
        case .ollama:
            return OllamaEmbedder(client: client, model: model)
        case .openai:
            guard let openAI else {
                throw EmbedderChoiceError(
                    "the openai provider needs a server — give --base-url URL (or OPENAI_BASE_URL, or base_url in "
                        + "the config file), e.g. --base-url http://127.0.0.1:8080/v1")
            }
            return OpenAIEmbedder(client: openAI, model: model)
        }
    }

    /// Whether the two (provider, model) pairs name the same weights: equal pairs, or builtin MiniLM and Ollama's
    /// `all-minilm`. Only for picking a model name when the provider changes (`--provider builtin` on an
    /// all-minilm index); whether an embedder's vectors fit an index is checked by its probe vector (Fingerprint).
    public static func sameModelName(
        _ providerA: Provider, _ modelA: String, _ providerB: Provider, _ modelB: String
    ) -> Bool {
        if providerA == providerB && modelA == modelB { return true }
        func isMiniLM(_ provider: Provider, _ model: String) -> Bool {
            switch provider {
            case .builtin: return model == BuiltinEmbedder.modelName
            case .ollama: return ["all-minilm", "all-minilm:latest", "all-minilm:l6-v2", "all-minilm:22m"].contains(model)
            case .openai: return false
            }
        }
        return isMiniLM(providerA, modelA) && isMiniLM(providerB, modelB)
    }
}

/// The embedder an index records.
public struct IndexedEmbedder: Sendable, Equatable {
    public var provider: Provider
    public var model: String

    /// An embedder from its parts.
    public init(provider: Provider, model: String) {
        self.provider = provider
        self.model = model
    }
}

/// An impossible `--embedder`/`--model` combination.
public struct EmbedderChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
