import Foundation
import Testing

@testable import OpenAICompatible

@Suite struct TypesTests {
    func reply(_ json: String) throws -> EmbeddingsReply {
        try JSONDecoder().decode(EmbeddingsReply.self, from: Data(json.utf8))
    }

    @Test func vectorsComeBackInInputOrder() throws {
        let request = EmbeddingsRequest(model: "m", input: ["a", "b"])
        let vectors = try OpenAIClient.check(
            reply(#"{"data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}]}"#), request: request,
            baseURL: "u")
        #expect(vectors == [[1, 0], [0, 1]])
    }

    @Test func base64IsLittleEndianFloat32() throws {
        let bytes = [Float(1.5), -2].flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
        let text = Data(bytes).base64EncodedString()
        let vectors = try OpenAIClient.check(
            reply(#"{"data":[{"index":0,"embedding":"\#(text)"}]}"#),
            request: EmbeddingsRequest(model: "m", input: ["a"], encodingFormat: .base64), baseURL: "u")
        #expect(vectors == [[1.5, -2]])
    }

    @Test func wrongCountOrderOrDimensionIsRefused() throws {
        let two = EmbeddingsRequest(model: "m", input: ["a", "b"])
        for body in [
            #"{"data":[{"index":0,"embedding":[1,0]}]}"#,
            #"{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[1,0]}]}"#,
            #"{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1,0,0]}]}"#,
            #"{"data":[{"index":0,"embedding":[1,0]},{"index":5,"embedding":[1,0]}]}"#,
        ] {
            #expect(throws: OpenAIError.self) { try OpenAIClient.check(reply(body), request: two, baseURL: "u") }
        }
        var asked = EmbeddingsRequest(model: "m", input: ["a"])
        asked.dimensions = 3
        #expect(throws: OpenAIError.self) {
            try OpenAIClient.check(reply(#"{"data":[{"index":0,"embedding":[1,0]}]}"#), request: asked, baseURL: "u")
        }
    }

    @Test func chatRequestAsksForUsage() throws {
        let json = String(decoding: try JSONEncoder().encode(ChatRequest(model: "m", messages: [])), as: UTF8.self)
        #expect(json.contains(#""stream":true"#))
        #expect(json.contains(#""include_usage":true"#))
    }

    @Test func errorSentences() {
        let key = OpenAIError.status(
            401, body: Array(#"{"error":{"message":"Invalid API Key"}}"#.utf8), endpoint: "/embeddings",
            baseURL: "http://h/v1", model: "m", served: nil)
        #expect(key.kind == .unauthorized && key.message.contains("OPENAI_API_KEY") && key.message.contains("Invalid API Key"))
        let missing = OpenAIError.status(
            404, body: [], endpoint: "/embeddings", baseURL: "http://h/v1", model: "m", served: ["a", "b"])
        #expect(missing.message.contains("model 'm'") && missing.message.contains("it serves: a, b"))
        let html = OpenAIError.status(
            502, body: Array("<html>Bad gateway</html>".utf8), endpoint: "/x", baseURL: "http://h/v1", model: nil,
            served: nil)
        #expect(html.kind == .server && html.message.contains("502") && html.message.contains("Bad gateway"))
        #expect(OpenAIClient.retryAfter("2", attempt: 1) == 2)
        #expect(OpenAIClient.retryAfter(nil, attempt: 3) == 4)
    }
}
