import Testing

@testable import TroveKit
import TroveTestTraits

@Suite("Embedding spaces", .offCooperativePool)
struct EmbeddingSpaceTests {
    @Test("builtin all-minilm-l6-v2 and Ollama's all-minilm name the same weights; every other pair does not", arguments: [
        (Provider.builtin, "all-minilm-l6-v2", Provider.ollama, "all-minilm", true),
        (Provider.builtin, "all-minilm-l6-v2", Provider.ollama, "all-minilm:latest", true),
        (Provider.ollama, "all-minilm", Provider.builtin, "all-minilm-l6-v2", true),
        (Provider.ollama, "nomic-embed-text", Provider.ollama, "nomic-embed-text", true),
        (Provider.builtin, "all-minilm-l6-v2", Provider.ollama, "nomic-embed-text", false),
        (Provider.ollama, "all-minilm", Provider.ollama, "nomic-embed-text", false),
        (Provider.builtin, "all-minilm-l6-v2", Provider.ollama, "all-minilm-l12-v2", false),
    ])
    func sameModelName(providerA: Provider, modelA: String, providerB: Provider, modelB: String, same: Bool) {
        #expect(EmbedderFactory.sameModelName(providerA, modelA, providerB, modelB) == same)
    }

    @Test("switching embedder keeps the index's model or its equivalent")
    func defaultModel() {
        let ollamaMiniLM = IndexedEmbedder(provider: .ollama, model: "all-minilm")
        #expect(EmbedderFactory.defaultModel(provider: .builtin, indexed: ollamaMiniLM, ollamaDefault: "x") == "all-minilm-l6-v2")
        let builtin = IndexedEmbedder(provider: .builtin, model: "all-minilm-l6-v2")
        #expect(EmbedderFactory.defaultModel(provider: .ollama, indexed: builtin, ollamaDefault: "x") == "all-minilm")
        #expect(EmbedderFactory.defaultModel(provider: .ollama, indexed: nil, ollamaDefault: "nomic-embed-text") == "nomic-embed-text")
    }

    @Test("an unknown provider is refused")
    func unknownProvider() {
        #expect(throws: EmbedderChoiceError("unknown embedder 'tfidf' — use --provider ollama, openai or builtin")) {
            try EmbedderFactory.provider("tfidf")
        }
    }
}
