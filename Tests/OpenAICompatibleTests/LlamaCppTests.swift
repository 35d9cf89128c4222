import Foundation
import Testing
import TroveTestSupport

@testable import OpenAICompatible

/// The client against llama.cpp's own server (../shared/tools/llamacpp), started by each test.
@Suite(.enabled(if: LlamaCppServer.unavailable == nil, "\(LlamaCppServer.unavailable ?? "")"), .serialized)
struct LlamaCppTests {
    @Test func embeddingsFloatAndBase64AgreeAndModelsAreListed() async throws {
        let server = try await LlamaCppServer(.embed)
        let client = OpenAIClient(baseURL: server.baseURL, apiKey: nil)
        #expect(try await client.models().contains("all-minilm"))
        let texts = ["why is the sky blue?", "Rayleigh scattering", "a recipe for bread"]
        let floats = try await client.embeddings(EmbeddingsRequest(model: "all-minilm", input: texts))
        let base64 = try await client.embeddings(
            EmbeddingsRequest(model: "all-minilm", input: texts, encodingFormat: .base64))
        #expect(floats.count == 3 && floats.allSatisfy { $0.count == 384 })
        for (a, b) in zip(floats, base64) { #expect(zip(a, b).map { abs($0 - $1) }.max()! < 1e-5) }
        // Order is kept: the first text is nearer the second than the third.
        func dot(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).map(*).reduce(0, +) }
        #expect(dot(floats[0], floats[1]) > dot(floats[0], floats[2]))
    }

    @Test func anInputOverTheContextIsAServerErrorSentence() async throws {
        let server = try await LlamaCppServer(.embed)
        let client = OpenAIClient(baseURL: server.baseURL, apiKey: nil)
        let long = Array(repeating: "word", count: 900).joined(separator: " ")
        let error = try await #require(throws: OpenAIError.self) {
            try await client.embeddings(EmbeddingsRequest(model: "all-minilm", input: [long]))
        }
        #expect(error.kind == .server || error.kind == .rejected, "\(error)")
    }

    @Test func aWrongKeyIsNamed() async throws {
        let server = try await LlamaCppServer(.embed, apiKey: "right-key")
        let wrong = OpenAIClient(baseURL: server.baseURL, apiKey: "wrong-key")
        let error = try await #require(throws: OpenAIError.self) {
            try await wrong.embeddings(EmbeddingsRequest(model: "all-minilm", input: ["x"]))
        }
        #expect(error.kind == .unauthorized && error.message.contains("OPENAI_API_KEY"))
        #expect(!error.message.contains("wrong-key"))
        let right = OpenAIClient(baseURL: server.baseURL, apiKey: "right-key")
        #expect(try await right.embeddings(EmbeddingsRequest(model: "all-minilm", input: ["x"])).count == 1)
    }

    @Test func chatStreamsPiecesThenFinishAndUsage() async throws {
        let server = try await LlamaCppServer(.chat)
        let client = OpenAIClient(baseURL: server.baseURL, apiKey: nil)
        var request = ChatRequest(
            model: "smollm2", messages: [ChatMessage(role: "user", content: "Say hello.")], temperature: 0,
            maxTokens: 8)
        request.seed = 1
        var pieces: [String] = []
        var finish: String?
        var usage: Usage?
        for try await event in client.chatStream(request) {
            switch event {
            case .content(let text): pieces.append(text)
            case .finished(let reason): finish = reason
            case .usage(let counted): usage = counted
            }
        }
        #expect(pieces.count > 1, "streamed in pieces")
        #expect(finish == "length" || finish == "stop")
        #expect((usage?.promptTokens ?? 0) > 0 && (usage?.completionTokens ?? 0) > 0)
    }

    @Test func aServerKilledMidStreamKeepsWhatArrivedAndSaysWhy() async throws {
        let server = try await LlamaCppServer(.chat)
        let client = OpenAIClient(baseURL: server.baseURL, apiKey: nil)
        let request = ChatRequest(
            model: "smollm2", messages: [ChatMessage(role: "user", content: "Tell a long story about a fox.")],
            maxTokens: 400)
        var pieces = 0
        do {
            for try await event in client.chatStream(request) {
                if case .content = event {
                    pieces += 1
                    if pieces == 3 { server.kill() }
                }
            }
            Issue.record("the stream ended cleanly after the server was killed")
        } catch let error as OpenAIError {
            #expect(error.kind == .unreachable, "\(error)")
            #expect(error.message.contains("ended before the answer was complete"), "\(error)")
        }
        #expect(pieces >= 3)
    }
}
