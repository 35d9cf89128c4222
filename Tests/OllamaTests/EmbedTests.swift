import Foundation
import Ollama
import Testing
import TroveTestSupport

@Suite("embedding over HTTP")
struct EmbedTests {
    @Test("a batch comes back in input order, one vector per text, equal to the server's")
    func roundTrip() async throws {
        let rig = try Rig()
        let texts = ["the quick brown fox", "jumps over", "", "the lazy dog", "Ünïcode wörds ok"]
        let reply = try await rig.client.embed(.init(model: "nomic-embed-text", input: texts))
        #expect(reply.model == "nomic-embed-text")
        #expect(reply.embeddings.count == texts.count)
        for (text, vector) in zip(texts, reply.embeddings) {
            #expect(vector == FakeOllamaServer.embedding(for: text, dimension: 64))
        }
        #expect(reply.promptEvalCount == 12)
        #expect(rig.server.embeddedInputCount == 5)
        #expect(rig.server.embedBatchSizes == [5])
    }

    @Test("an empty batch is answered with no vectors")
    func emptyBatch() async throws {
        let rig = try Rig()
        let reply = try await rig.client.embed(.init(model: "nomic-embed-text", input: []))
        #expect(reply.embeddings.isEmpty)
    }

    @Test("options go out as Ollama's snake_case keys, and unset ones are left out")
    func wireFormat() async throws {
        let rig = try Rig()
        let request = OllamaClient.EmbedRequest(
            model: "nomic-embed-text", input: ["a b"], truncate: false, keepAlive: "10m", dimensions: 32)
        let reply = try await rig.client.embed(request)
        #expect(reply.embeddings[0].count == 32)
        let body = try #require(rig.server.lastRequestBody(path: "/api/embed"))
        let sent = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(Set(sent.keys) == ["model", "input", "truncate", "keep_alive", "dimensions"])
        #expect(sent["keep_alive"] as? String == "10m")
        #expect(sent["input"] as? [String] == ["a b"])

        _ = try await rig.client.embed(.init(model: "nomic-embed-text", input: ["x"]))
        let plain = try #require(rig.server.lastRequestBody(path: "/api/embed"))
        let keys = try #require(try JSONSerialization.jsonObject(with: plain) as? [String: Any]).keys
        #expect(Set(keys) == ["model", "input"])
    }

    @Test("many concurrent batches share the client and all come back right", arguments: [16])
    func concurrentBatches(tasks: Int) async throws {
        let rig = try Rig()
        let client = rig.client
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<tasks {
                group.addTask {
                    let texts = (0..<8).map { "batch \(index) text \($0)" }
                    let reply = try await client.embed(.init(model: "nomic-embed-text", input: texts))
                    #expect(reply.embeddings == texts.map { FakeOllamaServer.embedding(for: $0, dimension: 64) })
                }
            }
            try await group.waitForAll()
        }
        #expect(rig.server.embeddedInputCount == tasks * 8)
        #expect(rig.server.requestCount(path: "/api/embed") == tasks)
    }

    @Test("a model named without its tag answers like name:latest")
    func latestTag() async throws {
        let rig = try Rig()
        let reply = try await rig.client.embed(.init(model: "nomic-embed-text:latest", input: ["hi"]))
        #expect(reply.embeddings.count == 1)
    }

    @Test("sequential requests reuse one kept-alive connection")
    func keepAlive() async throws {
        let rig = try Rig()
        for index in 0..<10 {
            _ = try await rig.client.embed(.init(model: "nomic-embed-text", input: ["text \(index)"]))
        }
        #expect(rig.server.requestCount(path: "/api/embed") == 10)
        #expect(rig.server.connectionCount == 1)
    }

    @Test("a batch with a body over 1 MB goes through without stalling")
    func largeBatch() async throws {
        let rig = try Rig()
        let texts = (0..<300).map { index in String(repeating: "word\(index % 7) ", count: 1000) }
        let clock = ContinuousClock()
        let start = clock.now
        let reply = try await rig.client.embed(.init(model: "nomic-embed-text", input: texts))
        // Generous: other tests share the two cores (the suite kept it waiting 90 s once); a stall would be a hang.
        #expect(clock.now - start < .seconds(300))
        #expect(reply.embeddings.count == 300)
        #expect(reply.embeddings[8] == FakeOllamaServer.embedding(for: texts[8], dimension: 64))
    }

    @Test("a base URL with a trailing slash or a changed timeout still works")
    func baseURLShapes() async throws {
        let rig = try Rig()
        var client = OllamaClient(baseURL: URL(string: rig.base + "/")!)
        #expect(try await client.version() == "0.9.0")
        client.requestTimeout = .seconds(2)
        #expect(try await client.version() == "0.9.0")
    }
}
