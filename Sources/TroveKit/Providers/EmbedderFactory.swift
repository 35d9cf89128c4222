import Ollama
import OpenAICompatible
import TroveMiniLM

/// Builds the embedder an index names: a provider with a model.
package enum EmbedderFactory {
    /// Parses a user-given provider (`--provider`, `TROVE_PROVIDER`); nil when none was given.
    package static func provider(_ value: String?) throws -> Provider? {
        guard let value, !value.isEmpty else { return nil }
        guard let provider = Provider(rawValue: value) else {
            throw EmbedderChoiceError("unknown embedder '\(value)' — use --provider \(Provider.spelled())")
        }
        return provider
    }

    /// Ollama's name of the built-in model's weights.
    static let ollamaMiniLM = "all-minilm"

    /// The model to use with `provider` when none is named: the index's own (or its equivalent), else the default.
    package static func defaultModel(provider: Provider, indexed: IndexedEmbedder?, ollamaDefault: String) -> String {
        let miniLM = provider == .builtin ? BuiltinEmbedder.modelName : ollamaMiniLM
        if let indexed {
            if indexed.provider == provider { return indexed.model }
            if sameModelName(indexed.provider, indexed.model, provider, miniLM) { return miniLM }
        }
        return provider == .builtin ? BuiltinEmbedder.modelName : ollamaDefault
    }

    /// Makes the embedder; `builtin` only runs `all-minilm-l6-v2` and needs its files in `modelFolder`.
    package static func make(
        provider: Provider, model: String, client: OllamaClient, modelFolder: String, threads: Int? = nil,
        precision: Precision? = nil, openAI: OpenAIClient? = nil
    ) throws -> any Embedder {
        switch provider {
        case .builtin:
            guard model == BuiltinEmbedder.modelName || sameModelName(.builtin, BuiltinEmbedder.modelName, .ollama, model)
            else {
                throw EmbedderChoiceError(
                    "the builtin embedder runs only \(BuiltinEmbedder.modelName), not '\(model)' — "
                        + "use --embedder \(Provider.ollama) --model \(model)")
            }
            var embedder = BuiltinEmbedder(folder: modelFolder, threads: threads ?? MiniLM.defaultThreads)
            embedder.precision = precision ?? .automatic
            return embedder
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
    package static func sameModelName(
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
