import Testing

@testable import TroveKit
import TroveTestTraits

@Suite("Embedding spaces", .offCooperativePool)
struct EmbeddingSpaceTests {
    @Test("builtin all-minilm-l6-v2 and Ollama's all-minilm name the same weights; every other pair does not", arguments: [
        ("builtin", "all-minilm-l6-v2", "ollama", "all-minilm", true),
        ("builtin", "all-minilm-l6-v2", "ollama", "all-minilm:latest", true),
        ("ollama", "all-minilm", "builtin", "all-minilm-l6-v2", true),
        ("ollama", "nomic-embed-text", "ollama", "nomic-embed-text", true),
        ("builtin", "all-minilm-l6-v2", "ollama", "nomic-embed-text", false),
        ("ollama", "all-minilm", "ollama", "nomic-embed-text", false),
        ("builtin", "all-minilm-l6-v2", "ollama", "all-minilm-l12-v2", false),
    ])
    func sameModelName(kindA: String, modelA: String, kindB: String, modelB: String, same: Bool) {
        #expect(EmbedderFactory.sameModelName(kindA, modelA, kindB, modelB) == same)
    }

    @Test("switching embedder keeps the index's model or its equivalent")
    func defaultModel() {
        let ollamaMiniLM = IndexedEmbedder(kind: "ollama", model: "all-minilm")
        #expect(EmbedderFactory.defaultModel(kind: "builtin", indexed: ollamaMiniLM, ollamaDefault: "x") == "all-minilm-l6-v2")
        let builtin = IndexedEmbedder(kind: "builtin", model: "all-minilm-l6-v2")
        #expect(EmbedderFactory.defaultModel(kind: "ollama", indexed: builtin, ollamaDefault: "x") == "all-minilm")
        #expect(EmbedderFactory.defaultModel(kind: "ollama", indexed: nil, ollamaDefault: "nomic-embed-text") == "nomic-embed-text")
    }

    @Test("an unknown kind is refused")
    func unknownKind() {
        #expect(throws: EmbedderChoiceError("unknown embedder 'tfidf' — use --provider ollama, openai or builtin")) {
            try EmbedderFactory.kind("tfidf")
        }
    }
}
