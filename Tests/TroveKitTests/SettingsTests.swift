import Testing
import TroveKit

@Suite("Where the index lives and how models are prompted")
struct SettingsTests {
    @Test(
        "models get their family's documented task prefixes",
        arguments: [
            ("nomic-embed-text", "search_query: ", "search_document: "),
            ("nomic-embed-text:v1.5", "search_query: ", "search_document: "),
            ("mxbai-embed-large", "Represent this sentence for searching relevant passages: ", ""),
            ("all-minilm", "", ""),
        ])
    func prefixes(model: String, query: String, document: String) {
        let prefixes = EmbeddingPrefixes.forModel(model)
        #expect(prefixes.query == query)
        #expect(prefixes.document == document)
    }

    @Test("chunks are sized below the model's context", arguments: [(512, 256), (2048, 400), (8192, 400), (100, 64)])
    func chunkBudget(context: Int, budget: Int) {
        #expect(Indexer.chunkBudget(contextLength: context) == budget)
    }
}
