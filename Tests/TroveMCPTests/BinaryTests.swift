import Foundation
import Testing
import TroveMCP
import TroveSystem
import TroveTestSupport

@Suite("The trove mcp executable on piped stdin")
struct BinaryTests {
    @Test("stdout carries only JSON-RPC replies, one per request, none for notifications; exit 0 at end of input")
    func onlyProtocolOnStdout() async throws {
        let rig = try await Rig()
        let input =
            [
                #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}"#,
                #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "this is not json",
                #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get","arguments":{"path":"tricky.md"}}}"#,
                #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"status","arguments":{}}}"#,
                #"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#,
                #"{"jsonrpc":"2.0","id":5,"method":"server/discover"}"#,
            ].joined(separator: "\n") + "\n"
        let inputPath = rig.folder.path + "/input.jsonl"
        try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
        let run = try await runProcess(
            "/bin/sh",
            [
                "-c", "exec \"$0\" mcp --index \"$1\" --ollama \"$2\" < \"$3\"", troveExecutable.path,
                rig.indexPath, rig.server.baseURL.absoluteString, inputPath,
            ])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 6, "\(run.output)")
        let replies = lines.compactMap { JSON.parse(Data($0.utf8)) }
        #expect(replies.count == lines.count, "every stdout line is JSON")
        #expect(replies.allSatisfy { $0["jsonrpc"] == "2.0" && ($0["result"] != nil || $0["error"] != nil) })
        #expect(Set(replies.compactMap { $0["id"]?.integerValue }) == [1, 2, 3, 4, 5])
        let tricky = replies.first { $0["id"] == 2 }?["result"]?["structuredContent"]?["text"]?.stringValue
        #expect(tricky.map { $0 + "\n" } == Rig.trickyNote)
        #expect(run.error.contains("trove mcp: serving"), "logs go to stderr")
    }
}
