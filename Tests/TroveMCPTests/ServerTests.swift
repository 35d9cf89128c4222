import Foundation
import Testing
import TroveMCP
import TroveSystem

@Suite("The MCP server in process: errors, concurrency, cancellation, data")
struct ServerTests {
    @Test("bad input never stops the server: every request after it is still answered")
    func keepsRunning() async throws {
        let rig = try await Rig()
        rig.send("garbage")
        rig.mcp.receive(.oversized)
        rig.send(#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#)
        rig.request(1, "server/discover")
        rig.request(2, "tools/call", ["name": "nope", "arguments": [:]])
        rig.request(3, "tools/call", ["name": "search", "arguments": ["query", "x"]])
        rig.request(4, "ping")
        let ping = try #require(await rig.reply(to: 4))
        #expect(ping["result"] == [:])
        #expect(await rig.reply(to: 1)?["error"]?["code"] == -32601)
        #expect(await rig.reply(to: 2)?["error"]?["code"] == -32602)
        #expect(await rig.reply(to: 3)?["error"]?["code"] == -32602)
        let nullIDs = rig.received.filter { $0["id"] == .null }.compactMap { $0["error"]?["code"]?.integerValue }
        #expect(nullIDs.sorted() == [-32700, -32600])
        #expect(rig.received.count == 6, "the notification must not be answered")
    }

    @Test("initialize answers a known version with itself and an unknown one with the newest")
    func versions() async throws {
        let rig = try await Rig()
        for (id, version) in ["2025-06-18", "2024-11-05", "2031-01-01"].enumerated() {
            rig.request(id, "initialize", ["protocolVersion": .string(version), "capabilities": [:]])
        }
        #expect(await rig.reply(to: 0)?["result"]?["protocolVersion"] == "2025-06-18")
        #expect(await rig.reply(to: 1)?["result"]?["protocolVersion"] == "2024-11-05")
        #expect(await rig.reply(to: 2)?["result"]?["protocolVersion"] == "2025-11-25")
    }

    @Test("a long ask does not hold up a search: the search's reply comes first")
    func interleaved() async throws {
        let rig = try await Rig(chatDelayMilliseconds: 150)
        rig.request(
            1, "tools/call", ["name": "ask", "arguments": ["question": "how do I ssh through the bastion host?"]])
        try await Task.sleep(for: .milliseconds(100))
        rig.request(2, "tools/call", ["name": "search", "arguments": ["query": "basil soil", "limit": 1]])
        let search = try #require(await rig.reply(to: 2))
        let ask = try #require(await rig.reply(to: 1))
        #expect(try #require(rig.position(of: 2)) < #require(rig.position(of: 1)))
        #expect(
            search["result"]?["structuredContent"]?["hits"]?.arrayValue?.first?["path"]?.stringValue?
                .hasSuffix("notes/garden.md") == true)
        #expect(ask["result"]?["structuredContent"]?["mode"] == "generated")
        #expect(
            ask["result"]?["structuredContent"]?["sources"]?.arrayValue?.first?["path"]?.stringValue?
                .hasSuffix("notes/ssh.md") == true)
    }

    @Test("status tells an agent how far the index is behind the disk")
    func statusFreshness() async throws {
        let rig = try await Rig()
        rig.request(1, "tools/call", ["name": "status", "arguments": [:]])
        let first = try #require(await rig.reply(to: 1))
        let current = first["result"]?["structuredContent"]?["folders"]?.arrayValue?.first
        #expect(current?["current"] == true, "\(String(describing: current))")
        #expect(current?["new"] == 0 && current?["gone"] == 0 && current?["interrupted"] == false)
        try rig.folder.write("notes/later.md", "# Later\n\nwritten after the run\n")
        rig.request(2, "tools/call", ["name": "status", "arguments": [:]])
        let second = try #require(await rig.reply(to: 2))
        let behind = second["result"]?["structuredContent"]?["folders"]?.arrayValue?.first
        #expect(behind?["current"] == false)
        #expect(behind?["new"] == 1)
    }

    @Test("a cancelled ask stops streaming from the model and is never answered")
    func cancellation() async throws {
        let rig = try await Rig(chatDelayMilliseconds: 300)
        rig.request(
            1, "tools/call", ["name": "ask", "arguments": ["question": "how do I ssh through the bastion host?"]])
        // Until the model has started streaming.
        let deadline = Date().addingTimeInterval(20)
        while rig.server.requestCount(path: "/api/chat") == 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        rig.send(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}"#)
        rig.request(2, "ping")
        #expect(await rig.reply(to: 2) != nil)
        let stopped = Date().addingTimeInterval(10)
        while rig.server.abandonedStreamCount == 0, Date() < stopped { try await Task.sleep(for: .milliseconds(20)) }
        #expect(rig.server.abandonedStreamCount == 1, "the chat stream must be abandoned")
        try await Task.sleep(for: .milliseconds(300))
        #expect(await rig.reply(to: 1, within: 0.1) == nil)
    }

    @Test("a document that looks like JSON-RPC and holds control characters comes back as data")
    func trickyDocument() async throws {
        let rig = try await Rig()
        rig.request(1, "tools/call", ["name": "get", "arguments": ["path": .string(rig.notes + "/tricky.md")]])
        let reply = try #require(await rig.reply(to: 1))
        #expect(reply["result"]?["isError"] == false)
        let text = try #require(reply["result"]?["structuredContent"]?["text"]?.stringValue)
        #expect(text + "\n" == Rig.trickyNote)
        let line = reply.encoded()
        #expect(!line.contains(0x0A) && !line.contains(where: { $0 < 0x20 }))
        #expect(JSON.parse(line) == reply)
    }

    static let failingCalls: [(JSON, String)] = [
        (["name": "get", "arguments": ["path": "/etc/passwd"]], "is outside the indexed folders"),
        (["name": "get", "arguments": ["path": "notes/../../../etc/passwd"]], "is outside the indexed folders"),
        (["name": "get", "arguments": ["path": "missing.md"]], "no indexed document at"),
        (
            ["name": "search", "arguments": ["query": "x", "root": ["nowhere"]]],
            "no indexed folder is called 'nowhere'"
        ),
        (["name": "search", "arguments": ["query": "x", "since": "yesterday-ish"]], "since expects a date"),
        (["name": "search", "arguments": ["query": "x", "colour": "red"]], "search has no argument 'colour'"),
        (["name": "search", "arguments": ["limit": 3]], "search needs a non-empty query"),
    ]

    @Test("failing tools answer isError with the CLI's one-line message", arguments: failingCalls)
    func failingTools(call: JSON, message: String) async throws {
        let rig = try await Rig()
        rig.request(1, "tools/call", call)
        let reply = try #require(await rig.reply(to: 1))
        #expect(reply["result"]?["isError"] == true)
        let text = reply["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        #expect(text.contains(message), "\(text)")
        #expect(!text.contains("\n"))
    }

    @Test("Ollama down and no index are tool errors with the CLI's message, and the server keeps answering")
    func unavailable() async throws {
        let rig = try await Rig()
        rig.server.stop()
        rig.request(1, "tools/call", ["name": "search", "arguments": ["query": "bastion"]])
        let down = try #require(await rig.reply(to: 1))
        #expect(down["result"]?["isError"] == true)
        #expect(
            down["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue?.contains("cannot reach Ollama") == true
        )

        let missing = rig.folder.path + "/none.sqlite"
        let tools = MCPTools(
            .init(
                configuration: Rig.configuration(server: rig.server, indexPath: missing), chatModel: "llama3.2",
                chatModelChosen: false))
        let server = MCPServer(tools: tools, version: "test", send: { _ in }, log: { _ in })
        let status = await server.reply(id: 2, method: "tools/call", params: ["name": "status", "arguments": [:]])
        #expect(status["result"]?["isError"] == true)
        #expect(
            status["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue
                == "no index at \(missing) — run: trove index FOLDER")
        let list = await server.reply(id: 3, method: "resources/list", params: nil)
        #expect(list["result"]?["resources"] == [])
    }

    @Test("ask answers extractively on request, and a chat model the agent named but that is missing is a tool error")
    func askModes() async throws {
        let rig = try await Rig()
        let question: JSON = "how do I ssh through the bastion host?"
        rig.request(1, "tools/call", ["name": "ask", "arguments": ["question": question, "extractive": true]])
        let extractive = try #require(await rig.reply(to: 1))
        #expect(extractive["result"]?["structuredContent"]?["mode"] == "extractive")
        #expect(extractive["result"]?["structuredContent"]?["reason"] == "--extractive asks no chat model")
        #expect(
            extractive["result"]?["structuredContent"]?["sources"]?.arrayValue?.first?["path"]
                == .string(rig.notes + "/ssh.md"))
        rig.request(2, "tools/call", ["name": "ask", "arguments": ["question": question, "chat_model": "nonesuch"]])
        let missing = try #require(await rig.reply(to: 2))
        #expect(missing["result"]?["isError"] == true)
        #expect(missing["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue?.contains("nonesuch") == true)
    }

    @Test("requests beyond the in-flight limit, and a reused id, are refused while the others run")
    func limits() async throws {
        let rig = try await Rig(chatDelayMilliseconds: 100, maxInFlight: 1)
        rig.request(
            1, "tools/call", ["name": "ask", "arguments": ["question": "how do I ssh through the bastion host?"]])
        rig.request(1, "ping")
        rig.request(2, "ping")
        #expect(await rig.reply(to: 2)?["error"]?["code"] == -32000)
        #expect(rig.received.first?["error"]?["message"] == "invalid request: id 1 is already in use")
        let deadline = Date().addingTimeInterval(30)
        func answered() -> JSON? { rig.received.first { $0["id"] == 1 && $0["result"] != nil } }
        while answered() == nil, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(answered()?["result"]?["isError"] == false)
        rig.request(3, "ping")
        #expect(await rig.reply(to: 3)?["result"] == [:])
    }
}
