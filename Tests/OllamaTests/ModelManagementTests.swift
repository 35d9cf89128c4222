import Foundation
import Ollama
import Testing
import TroveTestSupport

@Suite("pull, push, create, copy, delete, ps, probe")
struct ModelManagementTests {
    @Test("pull streams progress with growing byte counts and ends on success")
    func pull() async throws {
        let rig = try Rig()
        let (updates, error) = await drain(rig.client.pull("qwen2.5:0.5b"))
        #expect(error == nil)
        #expect(updates.first?.status == "pulling manifest")
        #expect(updates.last?.isSuccess == true)
        let layer = updates.filter { $0.total != nil }
        #expect(layer.count == 5)
        #expect(layer.map(\.completed) == [0, 1_000_000, 2_000_000, 3_000_000, 4_000_000])
        #expect(layer.last?.fraction == 1)
        #expect(updates.map(\.status).suffix(3) == ["verifying sha256 digest", "writing manifest", "success"])
        let sent =
            try JSONSerialization.jsonObject(with: rig.server.lastRequestBody(path: "/api/pull")!) as? [String: Any]
        #expect(sent?["model"] as? String == "qwen2.5:0.5b" && sent?["stream"] as? Bool == true)
    }

    @Test("a name the registry lacks fails the pull with Ollama's message")
    func pullUnknown() async throws {
        let rig = try Rig()
        let (updates, error) = await drain(rig.client.pull("nosuch-model"))
        #expect(updates.map(\.status) == ["pulling manifest"])
        #expect(error?.kind == .modelMissing)
        #expect(
            error?.description
                == "ollama could not pull 'nosuch-model': pull model manifest: file does not exist — check the name at"
                + " https://ollama.com/library")
    }

    @Test("an interrupted pull is an error, never a success")
    func pullInterrupted() async throws {
        let rig = try Rig()
        rig.server.streaming.dropAfterLines = 3
        let (updates, error) = await drain(rig.client.pull("llama3.2"))
        #expect(!updates.contains { $0.isSuccess })
        #expect(error != nil)
    }

    @Test("push streams progress; pushing an unknown model names it")
    func push() async throws {
        let rig = try Rig()
        let (updates, error) = await drain(rig.client.push("llama3.2"))
        #expect(error == nil)
        #expect(updates.first?.status == "retrieving manifest" && updates.last?.isSuccess == true)
        let (_, missing) = await drain(rig.client.push("me/unknown"))
        #expect(missing?.kind == .modelMissing)
        #expect(missing?.description == "model 'me/unknown' is not pulled — run: ollama pull me/unknown")
    }

    @Test("create from a Modelfile sends its parts as fields and streams to success")
    func create() async throws {
        let rig = try Rig()
        let modelfile = """
            # a terse assistant
            FROM llama3.2
            PARAMETER temperature 0.2
            PARAMETER stop "<|end|>"
            PARAMETER stop "User:"
            SYSTEM \"\"\"You answer
            in one line.\"\"\"
            MESSAGE user Hello
            """
        let request = try OllamaClient.CreateRequest(model: "terse", modelfile: modelfile)
        #expect(request.from == "llama3.2")
        #expect(request.system == "You answer\nin one line.")
        #expect(request.parameters == ["temperature": 0.2, "stop": ["<|end|>", "User:"]])
        #expect(request.messages == [.user("Hello")])
        let (updates, error) = await drain(rig.client.create(request))
        #expect(error == nil)
        #expect(updates.last?.isSuccess == true)
        #expect(updates.count == 6)
        let sent =
            try JSONSerialization.jsonObject(with: rig.server.lastRequestBody(path: "/api/create")!) as? [String: Any]
        #expect(sent?["from"] as? String == "llama3.2" && sent?["model"] as? String == "terse")
        #expect((sent?["parameters"] as? [String: Any])?["stop"] as? [String] == ["<|end|>", "User:"])
    }

    @Test(
        "a Modelfile mistake names its line",
        arguments: [
            ("FROM llama3.2\nFORM x", "Modelfile line 2: unknown instruction 'FORM'"),
            ("SYSTEM hi", "Modelfile line 1: a Modelfile needs a FROM line"),
            ("FROM a\nSYSTEM \"\"\"never closed", "Modelfile line 2: a \"\"\" is never closed"),
            ("FROM a\nPARAMETER temperature", "Modelfile line 2: PARAMETER needs a name and a value"),
        ])
    func modelfileErrors(text: String, message: String) {
        #expect(throws: OllamaClient.ModelfileError.self) {
            try OllamaClient.CreateRequest(model: "m", modelfile: text)
        }
        do {
            _ = try OllamaClient.CreateRequest(model: "m", modelfile: text)
        } catch {
            #expect(String(describing: error) == message)
        }
    }

    @Test("delete removes a model; deleting it again says it is not there")
    func delete() async throws {
        let rig = try Rig()
        try await rig.client.delete(model: "llama3.2")
        #expect(rig.server.deletedModels == ["llama3.2"])
        let sent =
            try JSONSerialization.jsonObject(with: rig.server.lastRequestBody(path: "/api/delete")!) as? [String: Any]
        #expect(sent?["model"] as? String == "llama3.2")
        let again = await ollamaError { try await rig.client.delete(model: "llama3.2") }
        #expect(again?.kind == .modelMissing)
        #expect(again?.serverMessage == "model 'llama3.2' not found")
    }

    @Test("copy sends source and destination; an unknown source is reported")
    func copy() async throws {
        let rig = try Rig()
        try await rig.client.copy(from: "llama3.2", to: "llama3.2-backup")
        let sent =
            try JSONSerialization.jsonObject(with: rig.server.lastRequestBody(path: "/api/copy")!) as? [String: String]
        #expect(sent == ["source": "llama3.2", "destination": "llama3.2-backup"])
        let missing = await ollamaError { try await rig.client.copy(from: "nope", to: "x") }
        #expect(missing?.kind == .modelMissing)
    }

    @Test("ps lists the models a request loaded")
    func ps() async throws {
        let rig = try Rig()
        #expect(try await rig.client.ps().isEmpty)
        _ = try await rig.client.chat(.init(model: "llama3.2", messages: [.user("hi")]))
        let running = try await rig.client.ps()
        #expect(running.map(\.name) == ["llama3.2:latest"])
        #expect(running.first?.sizeVRAM == 5_137_025_024)
        #expect(running.first?.contextLength == 131_072)
    }

    @Test("HEAD / tells a running server from a closed port")
    func probe() async throws {
        let rig = try Rig()
        try await rig.client.probe()
        #expect(await rig.client.isReachable())
        #expect(rig.server.requestCount(path: "/") == 2)
        let closed = try closedPort()
        let port = closed.port
        let gone = OllamaClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
        #expect(await !gone.isReachable())
        let error = await ollamaError { try await gone.probe() }
        #expect(error?.kind == .unreachable)
        #expect(error?.description == "cannot reach Ollama at http://127.0.0.1:\(port) — is it running? (ollama serve)")
    }

    @Test("the legacy /api/embeddings returns the same vector as /api/embed, for old servers")
    func legacyEmbedding() async throws {
        let rig = try Rig()
        let vector = try await rig.client.legacyEmbedding(model: "nomic-embed-text", prompt: "hello world")
        #expect(vector == FakeOllamaServer.embedding(for: "hello world", dimension: 64))
        let missing = await ollamaError { try await rig.client.legacyEmbedding(model: "nope", prompt: "x") }
        #expect(missing?.description == "model 'nope' is not pulled — run: ollama pull nope")
    }

    @Test("every new endpoint keeps Ollama's message when the server fails")
    func serverFailures() async throws {
        let rig = try Rig()
        rig.server.fault = .status(500, message: "llama runner process has terminated")
        let ps = await ollamaError { try await rig.client.ps() }
        #expect(ps?.description == "ollama failed on /api/ps (HTTP 500): llama runner process has terminated")
        let (_, pull) = await drain(rig.client.pull("llama3.2"))
        #expect(pull?.description == "ollama failed on /api/pull (HTTP 500): llama runner process has terminated")
        let delete = await ollamaError { try await rig.client.delete(model: "llama3.2") }
        #expect(delete?.serverMessage == "llama runner process has terminated")
    }
}
