import Foundation
import Testing
import TroveSystem
import TroveTestSupport
import TroveTestTraits

/// The official MCP Python SDK's venv (`../shared/tools/mcp-client`, which the test command sets up), or
/// `TROVE_MCP_CLIENT` naming that folder.
let sdkPython: String = {
    let folder =
        ProcessInfo.processInfo.environment["TROVE_MCP_CLIENT"].flatMap { $0.isEmpty ? nil : $0 }
        ?? repositoryRoot + "/../shared/tools/mcp-client"
    // The folder is standardized, not the interpreter: that is a symlink, and a venv is known by its own path.
    return URL(fileURLWithPath: folder).standardizedFileURL.path + "/.venv/bin/python"
}()

@Suite(
    "trove web's /mcp driven by the official MCP Python SDK's Streamable HTTP client",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: sdkPython),
        "needs the MCP SDK venv: bash ../shared/tools/mcp-client/setup.sh (or TROVE_MCP_CLIENT)"),
    .offCooperativePool)
struct SDKHTTPClientTests {
    @Test("handshake, the same four tools as trove mcp, a search, status, and a refused read outside the index")
    func session() async throws {
        let rig = try await WebRig()
        let calls = [
            "search", #"{"query": "bastion ssh", "limit": 2}"#, "status", "{}", "get", #"{"path": "/etc/passwd"}"#,
        ]
        let script = repositoryRoot + "/Tests/MCPClient/mcp_http_session.py"
        let url = "http://127.0.0.1:\(rig.web.port)/mcp"
        let session = try await run(sdkPython, [script, url, WebRig.token] + calls)
        #expect(session.status == 0, "\(session.error)")
        let out = try #require(JSON.parse(Data(session.output.utf8)), "\(session.output) \(session.error)")
        #expect(out["server"]?["name"] == "trove")
        #expect(out["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["search", "get", "ask", "status"])
        let answers = try #require(out["calls"]?.arrayValue)
        #expect(answers.map { $0["is_error"] } == [false, false, true])
        #expect(answers[0]["structured"]?["hits"]?.arrayValue?.first?["path"] == .string(rig.notes + "/ssh.md"))
        #expect(answers[1]["structured"]?["documents"] == 3)
        let refusal = answers[2]["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        #expect(refusal.hasPrefix("/etc/passwd is outside the indexed folders"))

        // Without the token the SDK's client gets nothing: the same script with a wrong one fails.
        let refused = try await run(sdkPython, [script, url, String(repeating: "0", count: 64)])
        #expect(refused.status == 1)
        #expect(refused.output.isEmpty)
    }
}
