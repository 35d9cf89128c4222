import Foundation
import Ollama
import Testing
import TroveTestSupport

/// A fake server and a client pointed at it.
struct Rig {
    let server: FakeOllamaServer
    let client: OllamaClient

    init(
        models: [FakeOllamaServer.Model] = [.embedding("nomic-embed-text"), .chat("llama3.2")],
        timeout: Duration = .seconds(10)
    ) throws {
        server = try FakeOllamaServer(models: models)
        client = OllamaClient(baseURL: server.baseURL, requestTimeout: timeout)
    }

    /// `http://127.0.0.1:PORT`, as messages spell it.
    var base: String { "http://127.0.0.1:\(server.port)" }
}

/// Runs `body`, expects an `OllamaError`, and returns it.
func ollamaError(_ body: () async throws -> some Any) async -> OllamaError? {
    do {
        _ = try await body()
        Issue.record("expected an OllamaError, got success")
        return nil
    } catch let error as OllamaError {
        return error
    } catch {
        Issue.record("expected an OllamaError, got \(type(of: error)): \(error)")
        return nil
    }
}

/// A port that nothing listens on, reserved until the test ends (see `ClosedPort`).
func closedPort() throws -> ClosedPort {
    try ClosedPort()
}
