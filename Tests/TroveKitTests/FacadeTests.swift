import Foundation
import Ollama
import Testing
import TroveKit
import TroveTestSupport
import TroveTestTraits

/// `TroveIndex`, the API every front end uses, over a real index embedded by the fake Ollama server.
@Suite("TroveIndex: one API for every front end", .offCooperativePool)
struct FacadeTests {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory
    let configuration: TroveConfiguration

    init() throws {
        server = try FakeOllamaServer()
        folder = try TemporaryDirectory()
        configuration = TroveConfiguration(
            location: .file(folder.path + "/i.sqlite"), ollama: OllamaClient(baseURL: server.baseURL), modelFolder: "/none")
    }

    private var corpora: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/Corpora"
    }

    /// Indexes `roots` through the facade; returns the summary and how many events came before it.
    @discardableResult
    private func run(_ index: TroveIndex, _ roots: [String]) async throws -> (IndexSummary, Int) {
        var events = 0
        var summary: IndexSummary?
        for try await progress in try await index.index(IndexOptions(roots: roots)) {
            switch progress {
            case .event: events += 1
            case .finished(let done): summary = done
            }
        }
        return (try #require(summary), events)
    }

    @Test("indexing reports events, then the summary; search and status see the result")
    func indexAndSearch() async throws {
        let index = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        let (summary, events) = try await run(index, [corpora])
        #expect(summary.newDocuments == 38)
        #expect(events > 38, "a crawled event, progress and one event per document")
        let status = try await index.status()
        #expect(status.documents == 38 && status.chunks == summary.chunksEmbedded)
        #expect(status.folders.map(\.path) == [corpora])
        #expect(status.model == "nomic-embed-text" && status.provider == .ollama)
        let lastIndexed = try #require(status.lastIndexed)
        #expect(abs(lastIndexed - Int64(Date().timeIntervalSince1970)) < 600)
        let hits = try await index.search(SearchRequest(query: "stripe secret key rotate", mode: .keyword, limit: 1))
        #expect(hits.first?.relativePath == "engineering/deploy.md")
    }

    @Test("text(path:) gives back every indexed document's lines exactly, blank lines included")
    func textMatchesFiles() async throws {
        let index = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        try await run(index, [corpora])
        let documents = try await index.documents()
        #expect(documents.count == 38)
        for document in documents {
            let file = try String(contentsOfFile: document.path, encoding: .utf8)
            var lines = file.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.allSatisfy { $0 == " " || $0 == "\t" } ? "" : String($0)
            }
            while lines.last == "" { lines.removeLast() }
            let text = try await index.text(path: document.path)
            #expect(text.lines.map(\.text) == lines, "\(document.relativePath)")
            #expect(text.lines.map(\.number) == Array(1...lines.count))
            // A range, by a path relative to its folder.
            let middle = try await index.text(path: document.relativePath, lines: 2...3)
            #expect(middle.lines.map(\.number) == [2, 3])
            #expect(middle.lines.map(\.text) == Array(lines[1...2]))
        }
    }

    @Test(
        "text(path:) refuses paths outside the indexed folders and lines past the end",
        arguments: ["/etc/passwd", "../../etc/passwd", "engineering/../../../etc/passwd", "/"])
    func textRefusals(path: String) async throws {
        let note = try folder.write("notes/engineering/deploy.md", "# Deploy\n\nShip it.\n")
        let index = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        try await run(index, [folder.path + "/notes"])
        await #expect(throws: DocumentError.self) { try await index.text(path: path) }
        do {
            _ = try await index.text(path: note, lines: 9000...9001)
            Issue.record("lines past the end were returned")
        } catch let error as DocumentError {
            #expect(error.message.hasSuffix("indexed lines; line 9000 is past the end"))
        }
    }

    @Test("a reader notices another connection's writes and reloads; its own forget too")
    func freshness() async throws {
        let notes = try folder.write("notes/a.md", "# Alpha\n\nThe aardvark eats ants.\n")
        let reader = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        try await run(reader, [(notes as NSString).deletingLastPathComponent])
        let query = SearchRequest(query: "zebra stripes", mode: .hybrid, limit: 5)
        #expect(try await reader.search(query).contains { $0.relativePath == "b.md" } == false)
        // Another process (here: another open index, another connection) adds a document.
        try folder.write("notes/b.md", "# Beta\n\nThe zebra has stripes.\n")
        let writer = try TroveIndex(opening: configuration)
        try await run(writer, [])
        #expect(try await reader.search(query).first?.relativePath == "b.md")
        #expect(try await reader.forget(folder: folder.path + "/notes")?.documents == 2)
        await #expect(throws: IndexError.self) { try await reader.search(query) }
    }

    @Test("askEvents streams the answer's tokens, then how it ended, with its cited sources")
    func askEvents() async throws {
        let chat = try FakeOllamaServer(models: [.embedding("nomic-embed-text"), .chat("llama3.2")])
        chat.streaming.reply = "Use the bastion as a jump host [1]."
        var configuration = configuration
        configuration.ollama = OllamaClient(baseURL: chat.baseURL)
        try folder.write("notes/ssh.md", "# SSH\n\nConnect through the bastion host with ssh -J bastion.\n")
        let index = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        try await run(index, [folder.path + "/notes"])
        var tokens = ""
        var outcome: AskOutcome?
        let request = AskRequest(
            question: "how do I ssh through the bastion host?", options: AskOptions(chatModel: "llama3.2"))
        for try await event in index.askEvents(request) {
            switch event {
            case .token(let token): tokens += token
            case .finished(let finished): outcome = finished
            }
        }
        guard case .answered(let answer) = try #require(outcome) else {
            Issue.record("expected a generated answer, got \(String(describing: outcome))")
            return
        }
        #expect(tokens == "Use the bastion as a jump host [1].")
        #expect(answer.text == tokens)
        #expect(answer.citedSources.map(\.hit.relativePath) == ["ssh.md"])
    }
}
