import Foundation
import Testing
import TroveTestSupport

@testable import TroveStore

/// ask, chat and watch through the `trove` binary (or in-process launcher) on a SQLite file and on a PostgreSQL
/// schema: the same scenario on each, the same output. Only the index location differs.
@Suite("ask, chat and watch alike on SQLite and PostgreSQL", .serialized)
struct StoreParityCommandTests {
    @Test(
        "PostgreSQL server for the ask, chat and watch parity tests",
        .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
    func serverStarts() async throws {
        _ = try await PostgresServer.url()
    }

    /// What one store printed for the scenario of `askAndChat`.
    private struct Transcript: Equatable {
        var extractive: String
        var extractiveJSON: String
        var generated: String
        var chat: String
        var storedTurns: [String]
    }

    @Test(
        "ask (extractive and generated, text and --json) and a piped chat print the same on both stores",
        .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
    func askAndChat() async throws {
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text", dimension: 1024), .chat("llama3.2")])
        server.streaming.reply = "Use a jump host [2]. Keep the key file per host [1]."
        let folder = try TemporaryDirectory()
        let question = "ssh ProxyJump bastion IdentityFile"
        var transcripts: [Transcript] = []
        for kind in StoreKind.allCases {
            let index = try await kind.freshLocation(in: folder.path)
            let environment = ["OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": index]
            let indexed = await trove(["index", corpora], index: index, server: server)
            try #require(indexed.status == 0, "\(kind): \(indexed.error)")

            let extractive = await trove(["ask", "--extractive", question], index: index, server: server)
            #expect(extractive.status == 0 && extractive.error.isEmpty, "\(kind): \(extractive.error)")
            let json = await trove(["ask", "--extractive", "--json", question], index: index, server: server)
            #expect(json.status == 0, "\(kind): \(json.error)")
            let generated = await trove(["ask", question], index: index, server: server)
            #expect(generated.status == 0 && generated.error.isEmpty, "\(kind): \(generated.error)")
            #expect(generated.output.contains("\n\nSources:\n  [2] "), "\(kind)")

            let chat = try await runBinary(
                ["chat", "--session", "ops"], environment: environment,
                input: "\(question)\n/sources\nand the bastion?\n/exit\n")
            #expect(chat.status == 0, "\(kind): \(chat.error)")
            #expect(chat.output.components(separatedBy: "Use a jump host [2].").count == 3, "\(kind)")
            // The session is in the index itself, whichever store holds it.
            let store = try IndexLocation(index).open(createIfMissing: false)
            let session = try store.chatSession(named: "ops", chatModel: "llama3.2")
            let turns = try store.chatMessages(sessionID: session.id)
            #expect(turns.map(\.role) == [.user, .assistant, .user, .assistant], "\(kind)")
            transcripts.append(
                Transcript(
                    extractive: extractive.output, extractiveJSON: Self.withoutScores(json.output),
                    generated: generated.output, chat: chat.output, storedTurns: turns.map(\.content)))
        }
        #expect(transcripts[0] == transcripts[1])
    }

    /// `--json` output with every `"score": …` value dropped: BLAS and pgvector round the last digits differently.
    private static func withoutScores(_ json: String) -> String {
        json.replacingOccurrences(of: #""score"\s*:\s*[-0-9.eE+]+"#, with: #""score":_"#, options: .regularExpression)
    }

    @Test(
        "trove index and trove watch without a folder find the index on either store; a new and an edited file become searchable",
        arguments: StoreKind.available)
    func watch(kind: StoreKind) async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(3, in: folder)
        let index = try await kind.freshLocation(in: folder.path)
        let environment = ["OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": index]
        try #require(try await runBinary(["index", notes], environment: environment).status == 0)
        // An existing index is found by asking its store (a URL's schema, not a file): no folder needed.
        let again = try await runBinary(["index"], environment: environment)
        #expect(again.status == 0 && again.output.hasPrefix("0 new, 0 changed, 3 unchanged"), "\(kind): \(again.error)")
        let child = try Child(["watch", "--json"], environment: environment, logs: folder.path + "/watch")
        #expect(
            await eventually { (try String(contentsOfFile: child.outputPath, encoding: .utf8)).contains("startup") })
        try folder.write("notes/fresh.md", "a note about the okapi\n")
        try folder.write("notes/group1/note 1.md", "# Note 1\n\nrewritten: pelican\n")
        for (word, file) in [("okapi", "fresh.md"), ("pelican", "note 1.md")] {
            #expect(
                await eventually {
                    (try? runBinaryBlockingForTest(["search", "--mode", "keyword", "--cold", word], environment))?
                        .contains(file) == true
                }, "\(kind): \(word)")
        }
        child.signal(SIGTERM)
        let run = await child.wait()
        #expect(run.status == 130, "\(kind): \(run.error)")
        #expect(try IndexLocation(index).open(createIfMissing: false).halfWrittenDocuments().isEmpty)
    }
}
