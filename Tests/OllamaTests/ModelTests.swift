import Foundation
import Ollama
import Testing
import TroveTestSupport

@Suite("models and version")
struct ModelTests {
    @Test("tags lists every pulled model with its digest and family")
    func tags() async throws {
        let rig = try Rig()
        let models = try await rig.client.tags()
        #expect(models.map(\.name) == ["nomic-embed-text:latest", "llama3.2:latest"])
        let embed = try #require(models.first)
        #expect(embed.model == "nomic-embed-text:latest")
        #expect(embed.family == "nomic-bert")
        #expect(embed.digest?.count == 64)
        #expect(embed.digest == FakeOllamaServer.Model.embedding("nomic-embed-text").digest)
        #expect((embed.size ?? 0) > 0)
    }

    @Test(
        "show reports capabilities and finds lengths by key suffix",
        arguments: [
            ("nomic-embed-text", ["embedding"], 64, 2048, "nomic-bert"),
            ("llama3.2", ["completion"], 3072, 131_072, "llama"),
        ])
    func show(name: String, capabilities: [String], dimension: Int, context: Int, family: String) async throws {
        let rig = try Rig()
        let details = try await rig.client.show(model: name)
        #expect(details.capabilities == capabilities)
        #expect(details.embeddingLength == dimension)
        #expect(details.contextLength == context)
        #expect(details.family == family)
        #expect(details.architecture == family)
        #expect(details.canEmbed == (capabilities == ["embedding"]))
    }

    @Test("show of a model that is not pulled says how to pull it")
    func showMissing() async throws {
        let rig = try Rig()
        let error = await ollamaError { try await rig.client.show(model: "mxbai-embed-large") }
        #expect(error?.kind == .modelMissing)
        #expect(error?.message == "model 'mxbai-embed-large' is not pulled — run: ollama pull mxbai-embed-large")
        #expect(error?.endpoint == "/api/show")
    }

    @Test("version is the server's version string")
    func version() async throws {
        let rig = try Rig()
        #expect(try await rig.client.version() == "0.9.0")
    }
}
