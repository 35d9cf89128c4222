import Foundation
import Ollama
import Synchronization
import TroveKit
import TroveMCP
import TroveSystem
import TroveTestSupport

/// A real index of a few notes, embedded by the fake Ollama server (which also chats), and an in-process MCP
/// server over it whose replies are collected in order.
final class Rig: Sendable {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory
    let indexPath: String
    let notes: String
    let mcp: MCPServer
    private let replies = Replies()

    /// The replies sent so far, in order.
    private final class Replies: Sendable {
        let list = Mutex<[JSON]>([])
    }

    /// A note whose text looks like JSON-RPC and holds control characters: it must come back as data.
    static let trickyNote =
        "# Tricky\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nbell \u{07} escape \u{1B}[31m nul-free \u{01}\n"
        + "\"quoted\" \\ backslash\ttab\n"

    /// `kind` chooses the store: a SQLite file in the rig's folder, or a fresh schema on the test PostgreSQL server.
    init(chatDelayMilliseconds: Int = 0, maxInFlight: Int = 64, kind: StoreKind = .sqlite) async throws {
        server = try FakeOllamaServer(models: [.embedding("nomic-embed-text"), .chat("llama3.2")])
        server.streaming.delayMilliseconds = chatDelayMilliseconds
        server.streaming.reply = "Use the bastion host as a jump host for every ssh session [1]."
        folder = try TemporaryDirectory()
        try folder.write("notes/ssh.md", "# SSH\n\nConnect through the bastion host with ssh -J bastion.\n")
        try folder.write("notes/garden.md", "# Garden\n\nWater the basil when the soil is dry.\n\nPrune tomatoes.\n")
        try folder.write("notes/tricky.md", Self.trickyNote)
        notes = folder.path + "/notes"
        indexPath = kind == .sqlite ? folder.path + "/i.sqlite" : try await kind.freshLocation(in: folder.path)
        let configuration = Rig.configuration(server: server, indexPath: indexPath)
        let index = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        for try await _ in try await index.index(IndexOptions(roots: [notes])) {}
        let tools = MCPTools(.init(configuration: configuration, chatModel: "llama3.2", chatModelChosen: false))
        let box = replies
        mcp = MCPServer(
            tools: tools, version: "test", maxInFlight: maxInFlight,
            send: { reply in box.list.withLock { $0.append(reply) } }, log: { _ in })
    }

    static func configuration(server: FakeOllamaServer, indexPath: String) -> TroveConfiguration {
        TroveConfiguration(
            location: IndexLocation(indexPath), ollama: OllamaClient(baseURL: server.baseURL), modelFolder: "/nonexistent")
    }

    /// Sends one line, as the client would.
    func send(_ line: String) { mcp.receive(.line(Data(line.utf8))) }

    /// Sends a request with `id`.
    func request(_ id: Int, _ method: String, _ params: JSON = [:]) {
        let message: JSON = ["jsonrpc": "2.0", "id": .integer(Int64(id)), "method": .string(method), "params": params]
        mcp.receive(.line(message.encoded()))
    }

    var received: [JSON] { replies.list.withLock { $0 } }

    /// The reply to `id`, once it came (within `seconds`).
    func reply(to id: Int, within seconds: Double = 30) async -> JSON? {
        await poll(within: seconds, every: .milliseconds(10)) { received.first { $0["id"] == .integer(Int64(id)) } }
    }

    /// The position of `id`'s reply among all replies.
    func position(of id: Int) -> Int? { received.firstIndex { $0["id"] == .integer(Int64(id)) } }
}
