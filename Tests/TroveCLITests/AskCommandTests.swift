import Foundation
import Testing
import TroveStore
import TroveTestSupport

/// A fake Ollama with an embedding model and a chat model, and `Corpora/` indexed through it.
private struct AskRig {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory
    var index: String { folder.path + "/index.sqlite" }
    var environment: [String: String] { ["OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": index] }

    init(chatModel: Bool = true) async throws {
        server = try FakeOllamaServer(
            models: [.embedding("nomic-embed-text", dimension: 1024)] + (chatModel ? [.chat("llama3.2")] : []))
        folder = try TemporaryDirectory()
        let run = await trove(["index", corpora], index: folder.path + "/index.sqlite", server: server)
        try #require(run.status == 0, "\(run.error)")
    }

    func ask(_ arguments: [String]) async -> Invocation {
        await trove(["ask"] + arguments, index: index, server: server)
    }
}

private let keyQuestion = "ssh ProxyJump bastion IdentityFile"

@Suite("trove ask", .serialized)
struct AskCommandTests {
    @Test("the answer streams to stdout, then the sources it cited, in citation order, with path and lines")
    func answerWithSources() async throws {
        let rig = try await AskRig()
        rig.server.streaming.reply = "Use a jump host [2]. Keep the key file per host [1]."
        // What ask retrieves: vector ranking, every passage (search's default is hybrid, one per document).
        let search = await trove(
            ["search", "--json", "--all-chunks", "-n", "8", keyQuestion], index: rig.index,
            server: rig.server)
        let hits = try #require(
            (try JSONSerialization.jsonObject(with: Data(search.output.utf8)) as? [String: Any])?["hits"]
                as? [[String: Any]])
        let location = { (hit: [String: Any]) in
            "\(displayed(hit["path"] as? String ?? "")):\(hit["start_line"] as? Int ?? 0)-\(hit["end_line"] as? Int ?? 0)"
        }

        let run = await rig.ask([keyQuestion])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasPrefix("Use a jump host [2]. Keep the key file per host [1].\n\nSources:\n"))
        let sourceLines = run.output.split(separator: "\n").filter { $0.hasPrefix("  [") }
        #expect(sourceLines.count == 2)
        #expect(sourceLines.first?.hasPrefix("  [2] " + location(hits[1])) == true)
        #expect(sourceLines.last?.hasPrefix("  [1] " + location(hits[0])) == true)
        #expect(run.error.isEmpty)
    }

    @Test("a citation that matches no source is flagged on stderr and never listed as a source")
    func inventedCitation() async throws {
        let rig = try await AskRig()
        rig.server.streaming.reply = "Jump through the bastion [1], as the handbook says [12]."
        let run = await rig.ask([keyQuestion])
        #expect(run.status == 0)
        #expect(!run.output.contains("[12] "))
        #expect(run.output.contains("  [1] "))
        #expect(
            run.error
                == "warning: the answer cites [12], which matches no source it was given — check that claim\n")
    }

    @Test("--json gives the answer, cited sources, model, prompt tokens and truncation")
    func json() async throws {
        let rig = try await AskRig()
        rig.server.streaming.reply = "Jump through the bastion [1]."
        let run = await rig.ask(["--json", keyQuestion])
        #expect(run.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["mode"] as? String == "generated")
        #expect(object["answer"] as? String == "Jump through the bastion [1].")
        #expect(object["model"] as? String == "llama3.2")
        #expect(object["truncated"] as? Bool == false)
        #expect((object["prompt_tokens"] as? Int ?? 0) > 50)
        let sources = try #require(object["sources"] as? [[String: Any]])
        #expect(sources.count == 1)
        #expect(sources.first?["number"] as? Int == 1)
        #expect((sources.first?["path"] as? String)?.hasPrefix(corpora) == true)
    }

    @Test("the prompt numbers the sources as quoted data and sends num_ctx explicitly")
    func promptShape() async throws {
        let rig = try await AskRig()
        _ = await rig.ask([keyQuestion])
        let body = try #require(rig.server.lastRequestBody(path: "/api/chat"))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let options = try #require(object["options"] as? [String: Any])
        #expect(options["num_ctx"] as? Int == 8192)
        let messages = try #require(object["messages"] as? [[String: Any]])
        #expect(messages.first?["role"] as? String == "system")
        let user = try #require(messages.last?["content"] as? String)
        #expect(user.hasPrefix("<sources>\n<source id=\"1\" path=\""))
        #expect(user.hasSuffix("</sources>\n\nQuestion: \(keyQuestion)"))
    }

    @Test("when Ollama fills the window with fewer prompt tokens than were sent, the answer says it was truncated")
    func truncation() async throws {
        let rig = try await AskRig()
        rig.server.streaming.promptEvalCount = 300
        let run = await rig.ask(["--json", "--num-ctx", "300", keyQuestion])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["truncated"] as? Bool == true)
        #expect(object["truncation_check"] as? String == "checked")
        #expect(run.error.contains("warning: Ollama dropped part of the prompt (it read 300 tokens of more sent)"))
        let body = try #require(rig.server.lastRequestBody(path: "/api/chat"))
        let options = try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["options"] as? [String: Any])
        #expect(options["num_ctx"] as? Int == 300, "--num-ctx is sent as num_ctx")
    }

    @Test("a short prompt count that a cached prefix can explain is not called a cut: --json says it was not checkable")
    func cachedPromptIsNotACut() async throws {
        let rig = try await AskRig()
        rig.server.streaming.promptEvalCount = 20
        let run = await rig.ask(["--json", keyQuestion])
        #expect(run.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["truncated"] as? Bool == false)
        #expect((object["truncation_check"] as? String)?.hasPrefix("not possible: the server counted 20 prompt tokens") == true)
        #expect(!run.error.contains("dropped part of the prompt"))
    }

    @Test("an answer that cites nothing lists the passages it was given under \"Not cited\", in text and --json")
    func notCited() async throws {
        let rig = try await AskRig()
        rig.server.streaming.reply = "Use a jump host."
        let text = await rig.ask([keyQuestion])
        #expect(text.status == 0)
        #expect(text.output.contains("\n\nSources: none cited\nNot cited (the passages the model was given):\n  [1] "))
        let json = await rig.ask(["--json", keyQuestion])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((object["sources"] as? [Any])?.isEmpty == true)
        let uncited = try #require(object["not_cited"] as? [[String: Any]])
        #expect(uncited.count >= 2 && uncited.first?["number"] as? Int == 1)
        #expect(object["provider"] as? String == "ollama")
    }

    @Test("a chat model that is not pulled exits 69 with the pull command, before any retrieval")
    func chatModelMissing() async throws {
        let rig = try await AskRig()
        let embedded = rig.server.embeddedInputCount
        let run = await rig.ask(["--chat-model", "qwen3:4b", keyQuestion])
        #expect(run.status == 69)
        #expect(run.error == "Error: model 'qwen3:4b' is not pulled — run: ollama pull qwen3:4b\n")
        #expect(rig.server.embeddedInputCount == embedded)
    }

    @Test("without the default chat model, the answer is the best passages, cited, quoted and labelled extractive")
    func extractiveWhenDefaultModelMissing() async throws {
        let rig = try await AskRig(chatModel: false)
        let run = await rig.ask([keyQuestion])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasPrefix("Extractive answer: the passages that best match, quoted from your documents"))
        #expect(run.output.contains("\n[1] \(displayed(corpora))/"))
        #expect(run.output.contains("\n    > "))
        #expect(
            run.error
                == "note: no chat model (model 'llama3.2' is not pulled — run: ollama pull llama3.2); answering with the passages themselves\n")
        #expect(rig.server.lastRequestBody(path: "/api/chat") == nil)
    }

    @Test("--extractive asks no chat model and --json labels the mode")
    func extractiveRequested() async throws {
        let rig = try await AskRig()
        let run = await rig.ask(["--extractive", "--json", keyQuestion])
        #expect(run.status == 0)
        #expect(run.error.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["mode"] as? String == "extractive")
        let passages = try #require(object["passages"] as? [[String: Any]])
        #expect((1...3).contains(passages.count))
        #expect(passages.map { $0["number"] as? Int } == Array(1...passages.count))
        #expect(passages.allSatisfy { ($0["path"] as? String)?.hasPrefix(corpora) == true })
        #expect(passages.allSatisfy { !($0["lines"] as? [String] ?? []).isEmpty })
        #expect(rig.server.lastRequestBody(path: "/api/chat") == nil)
        // Indexing asked /api/show about the embedding model; ask never asks about the chat model.
        let show = rig.server.lastRequestBody(path: "/api/show").map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(!show.contains("llama3.2"))
    }

    @Test("an embedding model is refused as a chat model")
    func embeddingModelAsChat() async throws {
        let rig = try await AskRig()
        let run = await rig.ask(["--chat-model", "nomic-embed-text", keyQuestion])
        #expect(run.status == 69)
        #expect(run.error.contains("model 'nomic-embed-text' cannot chat"))
    }

    @Test("when no passage covers the question, say so, show the nearest, and do not ask the model")
    func notCovered() async throws {
        let rig = try await AskRig()
        let run = await rig.ask(["--min-score", "0.99", keyQuestion])
        #expect(run.status == 1)
        #expect(run.output.hasPrefix("Your documents don't seem to cover this: no passage scored 0.99 or more.\n"))
        #expect(run.output.contains("Nearest passages:\n  \(displayed(corpora))/howto/ssh-config.md:"))
        #expect(rig.server.requestCount(path: "/api/chat") == 0)
        let general = await rig.ask(["--min-score", "0.99", "--allow-general", keyQuestion])
        #expect(general.status == 0)
        #expect(rig.server.requestCount(path: "/api/chat") == 1)
    }

    @Test("an error in the middle of the stream ends the run with Ollama's message")
    func midStreamError() async throws {
        let rig = try await AskRig()
        rig.server.streaming.errorAfterLines = 2
        let run = await rig.ask([keyQuestion])
        #expect(run.status == 1)
        #expect(run.error.contains("llama runner process has terminated: exit status 2"))
    }
}

@Suite("trove ask and chat as processes", .serialized)
struct AskProcessTests {
    @Test("Ctrl-C during an answer keeps what was written, marks it interrupted, and exits 130")
    func interrupt() async throws {
        let rig = try await AskRig()
        rig.server.streaming.reply = "One two three four five six seven eight nine ten [1]."
        rig.server.streaming.delayMilliseconds = 300
        let run = try await runBinary(["ask", keyQuestion], environment: rig.environment, interruptOnOutput: true)
        #expect(run.status == 130)
        #expect(run.output.hasPrefix("One"))
        #expect(run.output.contains(" [interrupted]"))
        #expect(!run.output.contains("ten [1]."))
        #expect(run.error.contains("interrupted: the answer above is partial"))
    }

    @Test("chat reads questions from a pipe, keeps history in the index, and resumes a named session")
    func chatFromPipe() async throws {
        let rig = try await AskRig()
        rig.server.streaming.reply = "Use ProxyJump [1]."
        let first = try await runBinary(
            ["chat", "--session", "ops"], environment: rig.environment,
            input: "\(keyQuestion)\n/sources\nand the bastion?\n/k 3\n/exit\n")
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.components(separatedBy: "Use ProxyJump [1].").count == 3)
        #expect(first.output.contains("* [1] "))
        #expect(first.output.contains("retrieving 3 passages per question"))
        // The follow-up was sent with the first turn as history.
        let body = try #require(rig.server.lastRequestBody(path: "/api/chat"))
        let messages = try #require(
            (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String ?? "" } == ["system", "user", "assistant", "user"])
        #expect(messages[1]["content"] as? String == keyQuestion)

        let resumed = try await runBinary(
            ["chat", "--session", "ops"], environment: rig.environment, input: "/reset\n/exit\n")
        #expect(resumed.status == 0)
        #expect(resumed.output.contains("history cleared"))
    }

    @Test("Ctrl-C in chat stops the answer, stores it as interrupted, and returns to the prompt")
    func chatInterrupt() async throws {
        let rig = try await AskRig()
        rig.server.streaming.reply = "One two three four five six seven eight nine ten [1]."
        rig.server.streaming.delayMilliseconds = 300
        let run = try await runBinary(
            ["chat", "--session", "cut"], environment: rig.environment, input: "\(keyQuestion)\n/exit\n",
            interruptOnOutput: true)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasPrefix("One"))
        #expect(run.output.contains(" [interrupted]"))
        #expect(!run.output.contains("ten [1]."))
        let store = try SQLiteStore(path: rig.index, createIfMissing: false)
        let session = try store.chatSession(named: "cut", chatModel: "llama3.2")
        let turns = try store.chatMessages(sessionID: session.id)
        #expect(turns.map(\.role) == [.user, .assistant])
        #expect(turns.last?.interrupted == true)
    }
}
