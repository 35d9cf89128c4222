import Foundation
import Ollama
import Testing
import TroveKit
import TroveStore
import TroveTestSupport
import TroveTestTraits

/// No passage is longer than the embedding model reads: the fake Ollama counts a word as a token and truncates what
/// is over its model's context, as Ollama does, so a passage over it would lose its end.
@Suite("A line over the model's context is stored as pieces the model reads whole", .offCooperativePool)
struct ContextLimitTests {
    @Test("each piece fits the context, its last words are found, and trove get joins the pieces into the line")
    func longLine() async throws {
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text", contextLength: 300)])
        let fixture = try IndexingFixture(server: server)
        let line =
            (1...150).map { "Sentence \($0) tells of the archive." }.joined(separator: " ")
            + " The last one names a zeppelin."
        try fixture.write("long.md", "# Long\n\n\(line)\n")
        let (summary, _) = try await fixture.index()
        #expect(summary.newDocuments == 1 && summary.skippedFiles == 0)
        let rows = try fixture.rows().filter { $0.path == "long.md" }
        // The heading's line, which no piece of the next line may join, then 906 words under a context of 300 (the
        // prefix and the heading line included): four pieces or more.
        #expect(rows.first?.text == "# Long")
        let pieces = rows.dropFirst()
        #expect(pieces.count >= 4)
        #expect(pieces.allSatisfy { ("search_document: Long " + $0.text).split(separator: " ").count <= 300 })
        #expect(pieces.allSatisfy { $0.startLine == 3 && $0.endLine == 3 })

        let index = try TroveIndex(
            opening: TroveConfiguration(
                location: IndexLocation(fixture.indexPath), ollama: OllamaClient(baseURL: server.baseURL),
                modelFolder: "/none"))
        #expect(try await index.text(path: fixture.notes + "/long.md").lines.map(\.text) == ["# Long", "", line])
        let hits = try await index.search(SearchRequest(query: "zeppelin", mode: .keyword, limit: 1))
        #expect(hits.first?.text.hasSuffix("names a zeppelin.") == true)
        #expect(hits.first?.startLine == 3)
    }
}
