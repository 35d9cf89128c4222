import Foundation
import Testing
import TroveSystem
import TroveTestSupport
import TroveTestTraits

@testable import TroveWeb

@Suite("trove web: the page, the API and its guards, over real HTTP", .offCooperativePool)
struct WebServerTests {
    @Test("the page and its assets come from the binary, with a policy that forbids inline and foreign scripts")
    func page() async throws {
        let rig = try await WebRig()
        let page = try rig.send("GET", "/", token: false)
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.contains("script-src 'self'") && policy.contains("default-src 'none'"))
        #expect(!policy.contains("unsafe-inline"))
        #expect(page.body.contains("<script src=\"/app.js\" defer></script>"))
        #expect(!page.body.contains("http://") && !page.body.contains("https://"), "nothing loaded from elsewhere")
        for asset in ["/app.js", "/app.css", "/favicon.svg"] {
            #expect(try rig.send("GET", asset, token: false).status == 200)
        }
        #expect(!Page.script.contains("innerHTML"), "data is never parsed as markup")
        #expect(try rig.send("GET", "/nothing", token: false).status == 404)
        #expect(try rig.send("POST", "/", token: false).status == 405)
    }

    @Test("the API answers only with the token, to this server's Host, from its own origin")
    func guards() async throws {
        let rig = try await WebRig()
        let missing = try rig.send("GET", "/api/status", token: false)
        #expect(missing.status == 401)
        #expect(missing.body.contains("needs the token"))
        #expect(
            try rig.send(
                "GET", "/api/status", headers: ["Authorization": "Bearer " + String(repeating: "0", count: 64)]
            ).status == 401)
        #expect(try rig.send("GET", "/mcp", token: false).status == 401)
        let rebinding = try rig.send("GET", "/api/status", headers: ["Host": "attacker.example:\(rig.web.port)"])
        #expect(rebinding.status == 403)
        #expect(rebinding.body.contains("is not this server"))
        // The page itself is refused to a foreign Host too: a rebound name never gets the script.
        #expect(try rig.send("GET", "/", headers: ["Host": "attacker.example"], token: false).status == 403)
        let foreign = try rig.send(
            "POST", "/api/ask", body: "{\"question\":\"x\"}", headers: ["Origin": "http://attacker.example"])
        #expect(foreign.status == 403)
        #expect(try rig.send("GET", "/api/status", headers: ["Sec-Fetch-Site": "cross-site"]).status == 403)
        #expect(
            try rig.send("GET", "/api/status", headers: ["Origin": "http://localhost:\(rig.web.port)"]).status == 200)
        #expect(try rig.send("GET", "/api/status").status == 200)
    }

    @Test("search answers with the tools' field names, plus snippet lines and the words to mark")
    func search() async throws {
        let rig = try await WebRig()
        let result = try rig.json("/api/search?query=bastion%20ssh&limit=2&ext=md")
        let hit = try #require(result["hits"]?.arrayValue?.first)
        #expect(hit["path"] == .string(rig.notes + "/ssh.md"))
        for key in ["rank", "start_line", "end_line", "heading", "score", "text", "snippet"] {
            #expect(hit[key] != nil, "\(key)")
        }
        #expect(result["terms"] == ["bastion", "ssh"])
        #expect(result["mode"] == "hybrid")
        let bad = try rig.send("GET", "/api/search?query=x&limit=0")
        #expect(bad.status == 400)
        #expect(bad.body.contains("limit must be a whole number from 1 to 100"))
        #expect(try rig.send("GET", "/api/search?query=x&colour=red").status == 400)
    }

    @Test("a document is read from the index only: no path outside it, no climbing out")
    func document() async throws {
        let rig = try await WebRig()
        let garden = try rig.json("/api/document?path=garden.md&start_line=3&end_line=3")
        #expect(garden["lines"] == [["number": 3, "text": "Water the basil when the soil is dry."]])
        for path in ["/etc/passwd", "../../../../etc/passwd", "garden.md/../../i.sqlite", "missing.md"] {
            let refused = try rig.send(
                "GET",
                "/api/document?path=" + (path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? path))
            #expect(refused.status == 404, "\(path): \(refused.body)")
        }
    }

    @Test("a body over the cap is refused")
    func bodyCap() async throws {
        var limits = HTTPServer.Limits()
        limits.bodyBytes = 1000
        let rig = try await WebRig(limits: limits)
        let big = try rig.send("POST", "/api/ask", body: "{\"question\": \"" + String(repeating: "a", count: 2000) + "\"}")
        #expect(big.status == 413)
        #expect(big.body.contains("the request body is over 0 KiB") || big.body.contains("over"))
    }

    @Test("a silent client holds only its own connection, and is dropped after the idle time")
    func silentClient() async throws {
        var limits = HTTPServer.Limits()
        limits.idleSeconds = 4
        let rig = try await WebRig(limits: limits)
        let silent = try RawConnection(port: rig.web.port)
        try silent.write("GET /api/status HTTP/1.1\r\nHost: \(rig.host)\r\n")
        let start = ContinuousClock.now
        #expect(try rig.send("GET", "/api/status").status == 200)
        let answered = ContinuousClock.now
        #expect(try silent.readAll().isEmpty)
        let dropped = ContinuousClock.now
        // The other request was answered while the silent one still held its connection, which the idle time ended.
        #expect(answered < dropped)
        #expect(dropped - start >= .seconds(3))
        #expect(dropped - start < .seconds(10))
    }

    @Test("MCP over Streamable HTTP: one JSON reply per request, 202 for a notification, no stream of its own")
    func mcp() async throws {
        let rig = try await WebRig()
        let initialize = try rig.send(
            "POST", "/mcp",
            body:
                #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","#
                    + #""capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            headers: ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"])
        #expect(initialize.status == 200)
        #expect(JSON.parse(Data(initialize.body.utf8))?["result"]?["protocolVersion"] == "2025-06-18")
        let notified = try rig.send("POST", "/mcp", body: #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        #expect(notified.status == 202)
        let call = try rig.send(
            "POST", "/mcp",
            body:
                #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"basil"}}}"#
        )
        let hits = JSON.parse(Data(call.body.utf8))?["result"]?["structuredContent"]?["hits"]?.arrayValue
        #expect(hits?.first?["path"] == .string(rig.notes + "/garden.md"))
        #expect(try rig.send("GET", "/mcp").status == 405)
        #expect(try rig.send("POST", "/mcp", body: "{").status == 400)
        #expect(
            try rig.send(
                "POST", "/mcp", body: #"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
                headers: ["MCP-Protocol-Version": "1999-01-01"]
            ).status == 400)
    }
}
