import Testing
import TroveKit

@Suite("Where the index lives and how models are prompted")
struct SettingsTests {
    @Test(
        "index path: flag, then TROVE_INDEX, then XDG_DATA_HOME, then ~/.local/share",
        arguments: [
            ("/x/i.sqlite", ["TROVE_INDEX": "/y.sqlite"], "/x/i.sqlite"),
            (nil, ["TROVE_INDEX": "/y.sqlite", "XDG_DATA_HOME": "/d"], "/y.sqlite"),
            (nil, ["XDG_DATA_HOME": "/d", "HOME": "/h"], "/d/trove/index.sqlite"),
            (nil, ["HOME": "/h"], "/h/.local/share/trove/index.sqlite"),
            (nil, ["XDG_DATA_HOME": "relative", "HOME": "/h"], "/h/.local/share/trove/index.sqlite"),
            ("~/notes.sqlite", ["HOME": "/h"], "/h/notes.sqlite"),
        ] as [(String?, [String: String], String)])
    func indexLocation(flag: String?, environment: [String: String], expected: String) {
        #expect(IndexLocation.resolve(flag: flag, environment: environment) == expected)
    }

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
