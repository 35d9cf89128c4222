import Foundation
import Ollama
import Testing

/// Runs against a real Ollama only when `OLLAMA_HOST` is set; the models it needs are named by
/// `TROVE_LIVE_EMBED_MODEL` and `TROVE_LIVE_CHAT_MODEL` (skipped when unset).
@Suite(
    "live Ollama",
    .enabled(if: ProcessInfo.processInfo.environment["OLLAMA_HOST"] != nil, "OLLAMA_HOST is not set: no live Ollama"))
struct LiveTests {
    let environment = ProcessInfo.processInfo.environment
    var client: OllamaClient {
        get throws {
            OllamaClient(
                baseURL: try OllamaHost.resolve(flag: nil, environment: environment),
                apiKey: environment["OLLAMA_API_KEY"])
        }
    }

    @Test("the server answers HEAD /, version, tags and ps")
    func basics() async throws {
        let client = try client
        try await client.probe()
        #expect(try await !client.version().isEmpty)
        _ = try await client.tags()
        _ = try await client.ps()
    }

    @Test(
        "a live embedding batch has one vector per input",
        .enabled(if: ProcessInfo.processInfo.environment["TROVE_LIVE_EMBED_MODEL"] != nil, "TROVE_LIVE_EMBED_MODEL is not set"))
    func embed() async throws {
        let model = try #require(environment["TROVE_LIVE_EMBED_MODEL"])
        let reply = try await client.embed(.init(model: model, input: ["a", "b"]))
        #expect(reply.embeddings.count == 2)
    }

    @Test(
        "a live chat streams to done",
        .enabled(if: ProcessInfo.processInfo.environment["TROVE_LIVE_CHAT_MODEL"] != nil, "TROVE_LIVE_CHAT_MODEL is not set"))
    func chat() async throws {
        let model = try #require(environment["TROVE_LIVE_CHAT_MODEL"])
        let request = OllamaClient.ChatRequest(
            model: model, messages: [.user("Say hello.")], options: .init(numPredict: 16, seed: 1))
        let reply = try await client.chatStream(request).collect()
        #expect(reply.done)
        #expect(reply.metrics.evalCount ?? 0 > 0)
    }
}
