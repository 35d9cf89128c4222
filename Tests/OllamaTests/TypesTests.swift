import Foundation
import Ollama
import Testing

/// The text of a fixture file, written from Ollama's API documentation.
func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil))
    return try Data(contentsOf: url)
}

@Suite("types and framing")
struct TypesTests {
    @Test("NDJSON framing gives the same lines at every split point")
    func framingAllSplits() {
        let text = "{\"a\":\"é☕\"}\r\n\n{\"b\":2}\n  \n{\"c\":3}"
        let bytes = Array(text.utf8)
        let expected = [Array("{\"a\":\"é☕\"}".utf8), Array("{\"b\":2}".utf8), Array("{\"c\":3}".utf8)]
        for first in 0...bytes.count {
            for second in first...bytes.count {
                var framer = NDJSONFramer()
                var lines = framer.append(bytes[0..<first])
                lines += framer.append(bytes[first..<second])
                lines += framer.append(bytes[second...])
                if let last = framer.finish() { lines.append(last) }
                #expect(lines == expected, "split at \(first), \(second)")
            }
        }
    }

    @Test(
        "model names parse into host, namespace, name and tag",
        arguments: [
            ("llama3.2", nil, nil, "llama3.2", nil, "llama3.2:latest"),
            ("llama3.2:1b", nil, nil, "llama3.2", "1b", "llama3.2:1b"),
            ("jmorgan/mistral:7b-q4", nil, "jmorgan", "mistral", "7b-q4", "jmorgan/mistral:7b-q4"),
            (
                "registry.ollama.ai/library/qwen2.5", "registry.ollama.ai", "library", "qwen2.5", nil,
                "registry.ollama.ai/library/qwen2.5:latest"
            ),
            ("localhost:5000/me/model:v1", "localhost:5000", "me", "model", "v1", "localhost:5000/me/model:v1"),
        ] as [(String, String?, String?, String, String?, String)])
    func modelIDs(text: String, host: String?, namespace: String?, name: String, tag: String?, tagged: String) throws {
        let id = try Model.ID(parsing: text)
        #expect(id.host == host && id.namespace == namespace && id.name == name && id.tag == tag)
        #expect(id.withTag == tagged)
        #expect(id.description == text)
    }

    @Test("equivalent model names match")
    func modelMatching() throws {
        #expect(Model.ID("llama3.2").matches("llama3.2:latest"))
        #expect(Model.ID("library/llama3.2").matches("registry.ollama.ai/library/llama3.2:latest"))
        #expect(!Model.ID("llama3.2:1b").matches("llama3.2"))
    }

    @Test(
        "bad model names say what is wrong",
        arguments: [
            ("", "'' is not a model name: it is empty"),
            ("llama:", "'llama:' is not a model name: the tag after ':' is empty"),
            ("a//b", "'a//b' is not a model name: a part between '/' is empty"),
            ("a/b/c/d", "'a/b/c/d' is not a model name: expected at most host/namespace/name, got 4 parts"),
            ("my model", "'my model' is not a model name: 'my model' may hold only letters, digits, '.', '_' and '-'"),
        ])
    func badModelIDs(text: String, message: String) {
        do {
            _ = try Model.ID(parsing: text)
            Issue.record("expected an error for '\(text)'")
        } catch {
            #expect(String(describing: error) == message)
        }
    }

    @Test("a documented chat stream decodes, with durations as Duration")
    func chatFixture() throws {
        var framer = NDJSONFramer()
        let lines = framer.append(try fixture("chat-stream.ndjson"))
        let chunks = try lines.map { try JSONDecoder().decode(OllamaClient.ChatResponse.self, from: Data($0)) }
        #expect(chunks.map(\.message.content).joined() == "The sky")
        let last = try #require(chunks.last)
        #expect(last.done && last.doneReason == "stop")
        #expect(last.metrics.totalDuration == .nanoseconds(4_883_583_458))
        #expect(last.metrics.evalDuration == .nanoseconds(4_535_599_000))
        #expect(last.metrics.promptEvalCount == 26 && last.metrics.evalCount == 282)
        #expect(abs((last.metrics.tokensPerSecond ?? 0) - 62.17) < 0.01)
        #expect(chunks[0].metrics == OllamaClient.Metrics())
    }

    @Test("documented tool calls, generate, pull, ps and legacy replies decode")
    func otherFixtures() throws {
        let tools = try JSONDecoder().decode(OllamaClient.ChatResponse.self, from: fixture("chat-tools.json"))
        let call = try #require(tools.message.toolCalls?.first)
        #expect(call.function.name == "get_current_weather")
        #expect(call.function.arguments == ["format": "celsius", "location": "Paris, FR"])
        let generate = try JSONDecoder().decode(OllamaClient.GenerateResponse.self, from: fixture("generate.json"))
        #expect(generate.response.hasPrefix("The sky is blue") && generate.metrics.evalCount == 290)
        var framer = NDJSONFramer()
        let pull = try framer.append(try fixture("pull-stream.ndjson")).map {
            try JSONDecoder().decode(OllamaClient.ProgressUpdate.self, from: Data($0))
        }
        #expect(pull.count == 5 && pull[1].total == 2_142_590_208 && pull[1].completed == 241_970)
        struct PS: Decodable { var models: [OllamaClient.RunningModel] }
        let ps = try JSONDecoder().decode(PS.self, from: fixture("ps.json"))
        #expect(ps.models.first?.name == "mistral:latest" && ps.models.first?.sizeVRAM == 5_137_025_024)
        struct Legacy: Decodable { var embedding: [Float] }
        #expect(try JSONDecoder().decode(Legacy.self, from: fixture("embeddings-legacy.json")).embedding.count == 5)
    }

    @Test("chat responses and requests round-trip through Codable")
    func roundTrip() throws {
        let response = OllamaClient.ChatResponse(
            model: "m", message: .assistant("hi"), done: true, doneReason: "length",
            metrics: .init(totalDuration: .milliseconds(1500), promptEvalCount: 3, evalCount: 4))
        let decoded = try JSONDecoder().decode(
            OllamaClient.ChatResponse.self, from: JSONEncoder().encode(response))
        #expect(decoded == response)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(response)) as? [String: Any]
        #expect(object?["total_duration"] as? Int == 1_500_000_000)
        #expect(object?["done_reason"] as? String == "length")
    }

    @Test("embed options go out as snake_case")
    func embedOptions() throws {
        let request = OllamaClient.EmbedRequest(model: "m", input: ["a"], options: .init(numCtx: 512))
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(request)) as? [String: Any]
        #expect((object?["options"] as? [String: Any])?["num_ctx"] as? Int == 512)
    }
}
