import Foundation
import Ollama
import Testing
import TroveKit
import TroveMiniLM
import TroveSystem
import TroveTestSupport
import TroveTestTraits

private let modelFolder = ModelFolder.resolve(environment: ProcessInfo.processInfo.environment)

@Suite("What a process builds once", .offCooperativePool)
struct SharedModelsTests {
    @Test("the same Ollama settings give the same client: one URLSession, one connection for both")
    func oneClientPerSettings() async throws {
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text", dimension: 8)])
        defer { server.stop() }
        let request = OllamaClient.EmbedRequest(model: "nomic-embed-text", input: ["a"])
        let first = SharedClients.ollama(baseURL: server.baseURL, requestTimeout: .seconds(30), apiKey: nil)
        let second = SharedClients.ollama(baseURL: server.baseURL, requestTimeout: .seconds(30), apiKey: nil)
        _ = try await first.embed(request)
        _ = try await second.embed(request)
        #expect(server.connectionCount == 1)
        // Other settings, another client with a session of its own.
        let other = SharedClients.ollama(baseURL: server.baseURL, requestTimeout: .seconds(31), apiKey: nil)
        _ = try await other.embed(request)
        #expect(server.connectionCount == 2)
    }

    @Test(
        "built-in embedders of one folder share the loaded model",
        .enabled(
            if: ModelFolder.missingFiles(in: modelFolder).isEmpty,
            "all-minilm-l6-v2 not installed in \(modelFolder) — run trove models install builtin"))
    func oneModelPerFolder() throws {
        let folder = modelFolder
        let first = try BuiltinEmbedder(folder: folder).encoder()
        #expect(first.modelSHA256.map { "sha256:" + $0 } == BuiltinEmbedder.digest)
        let second = try BuiltinEmbedder(folder: folder, threads: 1).encoder()
        #expect(first === second)
    }

    @Test(
        "another model.safetensors than the release Trove runs is refused, naming the install script",
        .enabled(
            if: ModelFolder.missingFiles(in: modelFolder).isEmpty,
            "all-minilm-l6-v2 not installed in \(modelFolder) — run trove models install builtin"))
    func otherModelRefused() throws {
        let folder = try TemporaryDirectory()
        for file in ["vocab.txt", "tokenizer.json"] {
            try FileManager.default.createSymbolicLink(
                atPath: folder.path + "/" + file, withDestinationPath: modelFolder + "/" + file)
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: modelFolder + "/model.safetensors"))
        bytes[bytes.count - 1] ^= 0x01  // the last weight's lowest bit: still a model, not the same file
        try bytes.write(to: URL(fileURLWithPath: folder.path + "/model.safetensors"))
        let expected = MiniLMError(
            .badFile,
            "\(folder.path)/model.safetensors is not the all-MiniLM-L6-v2 release Trove runs (SHA-256 "
                + "\(SHA256.hex(bytes))) — reinstall the model: trove models install builtin")
        // The first load builds the weights cache (and hashes the file); the second maps it and reads the hash there.
        #expect(throws: expected) { try BuiltinEmbedder(folder: folder.path).encoder() }
        #expect(throws: expected) { try BuiltinEmbedder(folder: folder.path).encoder() }
    }
}
