import Foundation
import Testing
import TroveMCP
import TroveSystem
import TroveTestSupport

/// The official MCP Python SDK's venv (`../shared/tools/mcp-client`, set up by its setup.sh; `.ci/run` does it),
/// or `TROVE_MCP_CLIENT` naming that folder. Without it these tests are skipped, saying so.
let mcpClientFolder: String = {
    if let folder = ProcessInfo.processInfo.environment["TROVE_MCP_CLIENT"], !folder.isEmpty { return folder }
    return URL(fileURLWithPath: repositoryRoot + "/../shared/tools/mcp-client").standardizedFileURL.path
}()
let sdkPython = mcpClientFolder + "/.venv/bin/python"
let hasSDK = FileManager.default.isExecutableFile(atPath: sdkPython)

@Suite(
    "trove mcp driven by the official MCP Python SDK",
    .enabled(if: hasSDK, "needs the MCP SDK venv: bash ../shared/tools/mcp-client/setup.sh (or TROVE_MCP_CLIENT)"),
    // One Python client at a time: each costs seconds of CPU on a small CI machine.
    .serialized)
struct SDKClientTests {
    private func serverCommand(_ rig: Rig) -> [String] {
        [troveExecutable.path, "mcp", "--index", rig.indexPath, "--ollama", rig.server.baseURL.absoluteString]
    }

    @Test("handshake, tools with schemas, every tool called, a failing call, resources listed and read")
    func session() async throws {
        let rig = try await Rig()
        let arguments =
            [mcpClientFolder + "/session.py", "--list"]
            + ["--call", "search", #"{"query": "bastion ssh", "limit": 2}"#]
            + ["--call", "get", #"{"path": "garden.md", "start_line": 3, "end_line": 5}"#]
            + ["--call", "ask", #"{"question": "how do I ssh through the bastion host?"}"#]
            + ["--call", "status", "{}"]
            + ["--call", "get", #"{"path": "/etc/passwd"}"#]
            + ["--resources", "--read", "file://" + rig.notes + "/ssh.md", "--"] + serverCommand(rig)
        let run = try await runProcess(sdkPython, arguments)
        #expect(run.status == 0, "\(run.error)")
        let out = try #require(JSON.parse(Data(run.output.utf8)), "\(run.output)")
        #expect(out["protocol_version"] == "2025-11-25")
        #expect(out["server"]?["name"] == "trove")
        let tools = try #require(out["tools"]?.arrayValue)
        #expect(tools.compactMap { $0["name"]?.stringValue } == ["search", "get", "ask", "status"])
        for tool in tools {
            #expect(tool["inputSchema"]?["type"] == "object")
            #expect(tool["outputSchema"]?["type"] == "object")
            #expect(tool["annotations"]?["readOnlyHint"] == true)
        }
        let calls = try #require(out["calls"]?.arrayValue)
        #expect(calls.map { $0["is_error"] } == [false, false, false, false, true])
        #expect(calls[0]["structured"]?["hits"]?.arrayValue?.first?["path"] == .string(rig.notes + "/ssh.md"))
        #expect(
            calls[1]["structured"]?["lines"] == [
                ["number": 3, "text": "Water the basil when the soil is dry."],
                ["number": 4, "text": ""], ["number": 5, "text": "Prune tomatoes."],
            ])
        #expect(calls[2]["structured"]?["mode"] == "generated")
        #expect(calls[3]["structured"]?["documents"] == 3)
        let failure = calls[4]["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        #expect(failure.hasPrefix("/etc/passwd is outside the indexed folders"))
        #expect(out["resources"]?.arrayValue?.count == 3)
        let read = out["reads"]?.arrayValue?.first?["contents"]?.arrayValue?.first?["text"]?.stringValue
        #expect(read == "# SSH\n\nConnect through the bastion host with ssh -J bastion.")
        #expect(!run.error.contains("Traceback"))
    }

    @Test(
        "search, get and status through the SDK answer the same on SQLite and PostgreSQL",
        .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
    func sameOnBothStores() async throws {
        var answers: [[JSON]] = []
        for kind in StoreKind.allCases {
            let rig = try await Rig(kind: kind)
            let arguments =
                [mcpClientFolder + "/session.py"]
                + ["--call", "search", #"{"query": "bastion ssh", "limit": 3}"#]
                + ["--call", "search", #"{"query": "basil", "mode": "keyword", "path": ["garden.md"]}"#]
                + ["--call", "get", #"{"path": "garden.md", "start_line": 3, "end_line": 5}"#]
                + ["--call", "status", "{}"]
                + ["--"] + serverCommand(rig)
            let run = try await runProcess(sdkPython, arguments)
            #expect(run.status == 0, "\(kind): \(run.error)")
            let out = try #require(JSON.parse(Data(run.output.utf8)), "\(kind): \(run.output)")
            let calls = try #require(out["calls"]?.arrayValue, "\(kind)")
            #expect(calls.map { $0["is_error"] } == [false, false, false, false], "\(kind): \(calls)")
            #expect(calls[0]["structured"]?["hits"]?.arrayValue?.first?["path"] == .string(rig.notes + "/ssh.md"))
            #expect(calls[1]["structured"]?["hits"]?.arrayValue?.count == 1, "\(kind)")
            #expect(calls[3]["structured"]?["documents"] == 3 && calls[3]["structured"]?["chunks"] == 3, "\(kind)")
            // Paths differ (each rig has its own folder); cosines in their last digits (BLAS vs pgvector); BM25
            // scores by the stores' keyword engines (FTS5's porter tokenizer, PostgreSQL's english stemmer).
            answers.append(calls.prefix(3).map { Self.comparable($0["structured"] ?? .null, notes: rig.notes) })
        }
        #expect(answers[0] == answers[1])
    }

    /// A tool result with the rig's folder taken out of every string, every number rounded to 4 places, and the
    /// BM25 scores (`keyword_score`, and `score` which is BM25 in keyword mode) left out.
    private static func comparable(_ value: JSON, notes: String) -> JSON {
        switch value {
        case .string(let text): return .string(text.replacingOccurrences(of: notes, with: "NOTES"))
        case .number(let number): return .number((number * 10_000).rounded() / 10_000)
        case .array(let items): return .array(items.map { comparable($0, notes: notes) })
        case .object(let fields):
            return .object(
                fields.filter { $0.key != "keyword_score" && $0.key != "score" }.mapValues { comparable($0, notes: notes) })
        default: return value
        }
    }

    @Test("auto mode (server/discover first) falls back to initialize at once: well under 3 s")
    func autoMode() async throws {
        let rig = try await Rig()
        let run = try await runProcess(
            sdkPython, [checksScript, "auto", "--"] + serverCommand(rig))
        #expect(run.status == 0, "\(run.error)")
        let out = try #require(JSON.parse(Data(run.output.utf8)), "\(run.output)")
        #expect(out["tools"]?.arrayValue?.count == 4)
        let seconds = try #require(out["seconds"]?.doubleValue)
        #expect(seconds < 3, "the SDK waited \(seconds) s: server/discover must get -32601 at once")
    }

    @Test("a search answers while a long ask streams; an abandoned ask is cancelled and the server goes on")
    func concurrencyAndCancellation() async throws {
        let rig = try await Rig(chatDelayMilliseconds: 200)
        let run = try await runProcess(
            sdkPython,
            [checksScript, "concurrency", "how do I ssh through the bastion host?", "basil soil", "--"]
                + serverCommand(rig))
        #expect(run.status == 0, "\(run.error)")
        let out = try #require(JSON.parse(Data(run.output.utf8)), "\(run.output)")
        let search = try #require(out["search_done"]?.doubleValue)
        let ask = try #require(out["ask_done"]?.doubleValue)
        #expect(search < ask, "search took \(search) s, the ask it ran beside \(ask) s")
        #expect(out["ask_mode"] == "generated")
        #expect(out["search_error"] == false)
        #expect(out["cancelled"] != .null, "the abandoned call must raise in the client")
        #expect(out["status_after"] == true)
        #expect(run.error.contains("cancelled"), "the server logs the cancellation: \(run.error)")
        // The cancelled ask's chat stream was dropped, not read to its end. The fake server notices when a write
        // fails, up to a line's delay after the client is done (this check raced it on a fast machine).
        let deadline = ContinuousClock.now + .seconds(5)
        while rig.server.abandonedStreamCount < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(rig.server.abandonedStreamCount >= 1)
    }
}

let checksScript = repositoryRoot + "/Tests/MCPClient/sdk_checks.py"

/// The repository's root folder, found from this file's path.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A finished child process.
struct Finished: Sendable {
    var status: Int32
    var output: String
    var error: String
}

/// Runs `executable` to its end on a thread of its own (never blocking the cooperative pool), output to files.
func runProcess(_ executable: String, _ arguments: [String]) async throws -> Finished {
    let logs = NSTemporaryDirectory() + "trove-mcp-\(UUID().uuidString)"
    let outputPath = logs + ".out"
    let errorPath = logs + ".err"
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    defer {
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: errorPath)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(
        ["HOME": NSTemporaryDirectory(), "SWIFT_BACKTRACE": "enable=no"]) { $1 }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle(forWritingAtPath: outputPath)
    process.standardError = FileHandle(forWritingAtPath: errorPath)
    try process.run()
    let status = await withCheckedContinuation { continuation in
        Thread {
            process.waitUntilExit()
            continuation.resume(returning: process.terminationStatus)
        }.start()
    }
    return Finished(
        status: status, output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
        error: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
}
