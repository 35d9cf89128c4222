import Foundation
import Testing
import TroveSystem
import TroveTestSupport
import TroveTestTraits

@testable import TroveWeb

/// The page's model picker: `/api/models` lists each chat server's models, and `/api/ask` answers with the provider
/// and model a request names, checked against those lists.
@Suite("trove web: the chat server and model chosen per request", .offCooperativePool)
struct ChatChoiceTests {
    static let question = "how do I ssh through the bastion?"

    /// Asks with `members` added to the question; the `done` event, or the refusal's status and sentence.
    static func ask(_ rig: WebRig, _ members: String) throws -> (done: JSON?, status: Int, error: String) {
        let body = #"{"question": "\#(question)", "limit": 1\#(members)}"#
        let response = try rig.send("POST", "/api/ask", body: body, headers: ["Content-Type": "application/json"])
        guard response.status == 200 else {
            return (nil, response.status, JSON.parse(Data(response.body.utf8))?["error"]?.stringValue ?? "")
        }
        let events = response.body.components(separatedBy: "\n\n").compactMap { block -> (String, JSON)? in
            let lines = block.split(whereSeparator: \.isNewline)
            guard let name = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7),
                let data = lines.first(where: { $0.hasPrefix("data: ") })?.dropFirst(6)
            else { return nil }
            return (String(name), JSON.parse(Data(data.utf8)) ?? .null)
        }
        let done = events.last { $0.0 == "done" }?.1
        return (done, 200, events.last { $0.0 == "error" }?.1["error"]?.stringValue ?? "")
    }

    @Test("Ollama's models are listed, and the one a request names answers it; mistakes are a clear 400")
    func ollama() async throws {
        let rig = try await WebRig(chatModels: ["llama3.2", "qwen2.5"])
        let models = try rig.json("/api/models")
        #expect(models["chat_provider"] == "ollama")
        #expect(models["chat_model"] == "llama3.2")
        let servers = try #require(models["providers"]?.arrayValue)
        #expect(servers.map { $0["provider"] } == ["ollama"], "no OpenAI-compatible chat server is configured")
        let listed = servers.first?["models"]?.arrayValue ?? []
        #expect(listed.contains("llama3.2:latest") && listed.contains("qwen2.5:latest"))

        let chosen = try Self.ask(rig, #", "chat_provider": "ollama", "chat_model": "qwen2.5""#)
        #expect(chosen.status == 200, "\(chosen.error)")
        #expect(chosen.done?["model"] == "qwen2.5")
        #expect(chosen.done?["provider"] == "ollama")
        let sent = JSON.parse(rig.ollama.lastRequestBody(path: "/api/chat") ?? Data())
        #expect(sent?["model"] == "qwen2.5", "the chosen model wrote the answer")
        // Without a choice, the server's default.
        #expect(try Self.ask(rig, "").done?["model"] == "llama3.2")

        let refusals: [(String, String)] = [
            (#", "chat_provider": "openai""#, "chat provider 'openai' is not configured here — choose ollama"),
            (#", "chat_provider": "builtin""#, "chat provider 'builtin' is not configured here"),
            (#", "chat_model": "mistral""#, "chat model 'mistral' is not served by ollama — choose "),
            (#", "chat_provider": 7"#, "chat_provider must be a string"),
            (#", "max_tokens": 0"#, "max_tokens must be a whole number from 1"),
        ]
        for (members, sentence) in refusals {
            let refused = try Self.ask(rig, members)
            #expect(refused.status == 400, "\(members)")
            #expect(refused.error.contains(sentence), "\(members): \(refused.error)")
        }
    }

    @Test(
        "llama.cpp's server beside Ollama: both listed, and each answers when chosen",
        .enabled(if: LlamaCppServer.unavailable == nil, Comment(rawValue: LlamaCppServer.unavailable ?? "")))
    func llamaCpp() async throws {
        let server = try await LlamaCppServer(.chat)
        let rig = try await WebRig(chatServer: server.baseURL)
        let models = try rig.json("/api/models")
        let servers = try #require(models["providers"]?.arrayValue)
        #expect(servers.map { $0["provider"] } == ["ollama", "openai"])
        #expect(servers.last?["models"] == ["smollm2"])
        #expect(models["chat_provider"] == "ollama", "the default is still the configured provider")

        // A short answer: seconds on an idle machine, longer on a loaded one.
        let openai = try Self.ask(rig, #", "chat_provider": "openai", "chat_model": "smollm2", "max_tokens": 8"#)
        #expect(openai.status == 200, "\(openai.error)")
        #expect(openai.done?["mode"] == "generated", "\(openai.error)")
        #expect(openai.done?["provider"] == "openai")
        #expect(openai.done?["model"] == "smollm2")
        let answer = openai.done?["answer"]?.stringValue ?? ""
        #expect(!answer.isEmpty)
        // The provider alone: its first model.
        #expect(try Self.ask(rig, #", "chat_provider": "openai", "max_tokens": 4"#).done?["model"] == "smollm2")
        let ollama = try Self.ask(rig, #", "chat_provider": "ollama", "chat_model": "llama3.2""#)
        #expect(ollama.done?["provider"] == "ollama")
        #expect(ollama.done?["model"] == "llama3.2")
        let wrong = try Self.ask(rig, #", "chat_provider": "openai", "chat_model": "llama3.2""#)
        #expect(wrong.status == 400)
        #expect(wrong.error.contains("chat model 'llama3.2' is not served by openai — choose smollm2"))
    }
}
