import Foundation
import Testing

@testable import TroveMiniLM
import TroveTestTraits

@Suite("MiniLM encoder", .enabled(if: InstalledModel.isInstalled, InstalledModel.skipReason), .offCooperativePool)
struct EncoderTests {
    struct Reference: Decodable {
        var text: String
        var vector: [Float]
    }

    @Test("'why is the sky blue?' matches Ollama's all-minilm vector")
    func skyIsBlue() throws {
        let model = try #require(InstalledModel.model)
        let reference = try JSONDecoder().decode(Reference.self, from: fixture("sky.json"))
        let vector = model.embed([reference.text], threads: 1)[0]
        #expect(vector.count == 384)
        #expect(cosine(vector, reference.vector) >= 0.9999)
        // The first values Ollama's own integration test expects from all-minilm.
        let ollama: [Float] = [0.010071031, -0.0017594865, 0.050072223, 0.046929732, 0.05491682]
        #expect(cosine(Array(vector.prefix(5)), ollama) >= 0.9999)
        for (a, b) in zip(vector, ollama) { #expect(abs(a - b) < 2e-4) }
    }

    @Test("packing, batching and threads do not change a vector")
    func batchingIsInvisible() throws {
        let model = try #require(InstalledModel.model)
        let texts = ["why is the sky blue?", "a much longer sentence about the boundary layer of a wing", "x", ""]
        let alone = texts.map { model.embed([$0], threads: 1)[0] }
        // fp32 throughout: a reduced precision changes the long batches (ReducedPrecisionTests bounds how much).
        let together = model.embed(texts, threads: 2, precision: .fp32)
        // One text on two threads splits every product's columns and the heads between them.
        let split = texts.map { model.embed([$0], threads: 2)[0] }
        for (a, b) in zip(alone, together) { #expect(cosine(a, b) > 0.99999) }
        for (a, b) in zip(alone, split) { #expect(cosine(a, b) >= 0.999999) }
        // A short text alone multiplies the model file's matrices in place; beside a long one, the re-laid-out copy.
        let long = String(repeating: "the boundary layer of a swept wing ", count: 20)
        let beside = texts.map { model.embed([$0, long], threads: 1, precision: .fp32)[0] }
        for (a, b) in zip(alone, beside) { #expect(cosine(a, b) >= 0.999999) }
        for vector in together {
            let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(norm - 1) < 1e-4)
        }
        #expect(model.embed([]).isEmpty)
    }

    @Test("similar sentences score higher than unrelated ones")
    func meaning() throws {
        let model = try #require(InstalledModel.model)
        let v = model.embed(["how do I rotate the api key", "steps to change an API key", "a recipe for banana bread"])
        #expect(cosine(v[0], v[1]) > cosine(v[0], v[2]) + 0.3)
    }

    @Test("a text longer than 512 tokens is truncated, like Ollama")
    func truncation() throws {
        let model = try #require(InstalledModel.model)
        let ids = model.tokenizer.encode(String(repeating: "word ", count: 2000))
        #expect(ids.count == 512)
        #expect(ids.last == model.tokenizer.separator)
    }
}

@Suite("Model files")
struct ModelFileTests {
    @Test("the folder follows TROVE_MODELS, then XDG_DATA_HOME, then HOME", arguments: [
        (["TROVE_MODELS": "/m/", "XDG_DATA_HOME": "/x", "HOME": "/h"], "/m/all-minilm-l6-v2"),
        (["XDG_DATA_HOME": "/x", "HOME": "/h"], "/x/trove/models/all-minilm-l6-v2"),
        (["HOME": "/h"], "/h/.local/share/trove/models/all-minilm-l6-v2"),
    ])
    func folder(environment: [String: String], expected: String) {
        #expect(ModelFolder.resolve(environment: environment) == expected)
    }

    @Test("a missing model names the install script")
    func missing() {
        #expect(ModelFolder.missingFiles(in: "/nonexistent") == ["model.safetensors", "vocab.txt", "tokenizer.json"])
        #expect(
            throws: MiniLMError(
                .missingFile,
                "the built-in model is not installed: /nonexistent/model.safetensors is missing — run trove models install builtin")
        ) { try MiniLM(folder: "/nonexistent") }
    }

    @Test("a file that is not safetensors is refused")
    func notSafetensors() throws {
        let path = NSTemporaryDirectory() + "/trove-not-safetensors-\(getpid())"
        try Data("tiny".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: MiniLMError(.badFile, "\(path) is not a safetensors file: shorter than its 8-byte header length")) {
            try SafeTensors(path: path)
        }
    }
}
