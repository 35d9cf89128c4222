import Foundation
import Testing
import TroveCLI
import TroveTestSupport

/// `ask` with `--chat-provider openai` against llama.cpp's own server (../shared/tools/llamacpp) writing answers with
/// SmolLM2-135M-Instruct, over an index of Corpora/howto made by the built-in embedder.
@Suite(
    "ask through llama.cpp's chat server",
    .enabled(if: LlamaCppServer.unavailable == nil, "\(LlamaCppServer.unavailable ?? "")"),
    .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason), .serialized)
struct OpenAIChatTests {
    static let question = "how do I reach a server behind the bastion with ssh?"

    /// The folder, its index and the environment that points `ask` at `server`.
    func rig(_ server: LlamaCppServer) async throws -> (folder: TemporaryDirectory, environment: [String: String]) {
        let folder = try TemporaryDirectory()
        let environment = BuiltinModel.environment.merging([
            "TROVE_INDEX": folder.path + "/index.sqlite", "TROVE_CHAT_PROVIDER": "openai",
            "TROVE_CHAT_BASE_URL": server.baseURL.absoluteString,
        ]) { $1 }
        let indexed = await trove(
            ["index", "--quiet", "--provider", "builtin", corpora + "/howto"], index: folder.path + "/index.sqlite",
            environment: environment)
        try #require(indexed.status == 0, "\(indexed.error)")
        return (folder, environment)
    }

    @Test("ask streams an answer from llama.cpp, with checked citations, token counts and the server's window")
    func askStreams() async throws {
        let server = try await LlamaCppServer(.chat)
        let (folder, environment) = try await rig(server)
        let index = folder.path + "/index.sqlite"
        // One passage, a small window and a short answer: seconds on an idle machine, minutes on a loaded one.
        let small = ["-n", "1", "--num-ctx", "1024", "--max-tokens", "12", "--seed", "1", "--temperature", "0"]
        let json = await trove(["ask", "--json"] + small + [Self.question], index: index, environment: environment)
        #expect(json.status == 0, "\(json.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["mode"] as? String == "generated")
        #expect(object["provider"] as? String == "openai")
        #expect(object["model"] as? String == "smollm2", "the server's only model, as none was named")
        #expect(!(object["answer"] as? String ?? "").isEmpty)
        // llama.cpp reports usage (stream_options.include_usage): truncation was checked, and nothing was cut.
        #expect((object["prompt_tokens"] as? Int ?? 0) > 100)
        #expect(object["truncation_check"] as? String == "checked")
        #expect(object["truncated"] as? Bool == false)
        #expect(object["done_reason"] as? String == "length", "12 tokens cannot finish an answer")
        let cited = (object["sources"] as? [Any])?.count ?? 0
        let uncited = (object["not_cited"] as? [Any])?.count ?? 0
        #expect(cited + uncited == 1)

        // The same question again, as text: the prompt is now in llama.cpp's cache, and the ending is reported.
        let text = await trove(["ask"] + small + [Self.question], index: index, environment: environment)
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains("\n\nSources:"))
        if text.output.contains("Sources: none cited") { #expect(text.output.contains("Not cited (the passages")) }
        #expect(text.error.contains("warning: the answer stopped at the length limit"), "\(text.error)")
    }

    @Test("the server killed mid-answer: the partial answer is kept, the cause is named, exit 69")
    func killedMidAnswer() async throws {
        let server = try await LlamaCppServer(.chat)
        let (folder, environment) = try await rig(server)
        let output = CapturedStream()
        let error = CapturedStream()
        var env = ["HOME": NSTemporaryDirectory()]
        env.merge(environment) { $1 }
        let console = Console(output: output, error: error, environment: env)
        let question = "Explain in great detail, step by step, everything about ssh config files and jump hosts."
        let run = Task {
            await Launcher.run(["ask", "--seed", "2", "-n", "1", "--num-ctx", "1024", question], console: console)
        }
        // Kill it once the answer has begun (a slow, loaded machine may take a while to read the prompt).
        let deadline = Date().addingTimeInterval(180)
        while output.text.count < 8, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        let written = output.text
        try #require(!written.isEmpty, "no answer began within 180 s: \(error.text)")
        server.kill()
        let status = await run.value
        _ = folder
        #expect(status == 69, "\(error.text)")
        #expect(output.text.hasPrefix(written), "what was written is kept")
        #expect(output.text.contains(" [incomplete]\n"), "\(output.text)")
        #expect(
            error.text.contains("Error: the answer broke off: the connection to \(server.baseURL.absoluteString) ended "
                + "before the answer was complete"), "\(error.text)")
    }

}

@Suite("Choosing the chat provider")
struct ChatProviderTests {
    @Test("--chat-provider openai without a server is a usage error naming the flags")
    func noServer() async {
        let run = await trove(["ask", "--chat-provider", "openai", "anything"], index: "/nonexistent")
        #expect(run.status == 64)
        #expect(run.error.contains("--chat-provider openai needs a server — give --chat-base-url URL or --base-url URL"))
    }

    @Test("an unknown chat provider is a usage error, from the flag or the environment")
    func unknownProvider() async {
        let flag = await trove(["ask", "--chat-provider", "grok", "anything"], index: "/nonexistent")
        #expect(flag.status == 64)
        let environment = await trove(
            ["ask", "anything"], index: "/nonexistent", environment: ["TROVE_CHAT_PROVIDER": "grok"])
        #expect(environment.status == 64)
        #expect(environment.error.contains("unknown chat provider 'grok' — use --chat-provider ollama or --chat-provider openai"))
    }
}
