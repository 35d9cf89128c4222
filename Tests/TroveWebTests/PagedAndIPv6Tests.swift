import Foundation
import Testing
import TroveSystem
import TroveTestSupport
import TroveTestTraits

@testable import TroveWeb

@Suite("trove web: a PDF's pages, the watch's progress, and IPv6", .offCooperativePool)
struct PagedAndIPv6Tests {
    @Test("a PDF's hits and an answer's sources carry their page, as --json and MCP write it")
    func pages() async throws {
        let rig = try await WebRig(pdf: true)
        let result = try rig.json("/api/search?query=shared%20MIME%20info%20database%20glob%20patterns&ext=pdf")
        let hit = try #require(result["hits"]?.arrayValue?.first)
        #expect(hit["path"] == .string(rig.notes + "/mime-spec.pdf"))
        let locator = try #require(hit["locator"])
        #expect(locator["kind"] == "page")
        let page = try #require(locator["start"]?.integerValue)
        #expect(locator["label"]?.stringValue?.hasPrefix("p.\(page)") == true)
        #expect(locator["approximate"] == false)
        #expect(hit["uri"]?.stringValue?.hasSuffix("#page=\(page)") == true)
        // The hit's lines are the document's: the view opens where the page's passage lies.
        let start = try #require(hit["start_line"]?.integerValue)
        let lines = try rig.json("/api/document?path=mime-spec.pdf&start_line=\(start)&end_line=\(start)")
        #expect(lines["lines"]?.arrayValue?.count == 1)
    }

    @Test("the status shows a watch: idle, then a pass in progress with its files done of the total")
    func watchProgress() async throws {
        let rig = try await WebRig()
        #expect(try rig.json("/api/status")["watch"] == nil, "no watch, no member")
        rig.web.progress.record(.watching(roots: [rig.notes], folders: 1))
        #expect(try rig.json("/api/status")["watch"] == ["indexing": false])
        rig.web.progress.record(.indexing(.progress(filesDone: 2, filesTotal: 5, chunksEmbedded: 7)))
        #expect(try rig.json("/api/status")["watch"] == ["indexing": true, "files_done": 2, "files_total": 5])
    }

    @Test("--host ::1: listens on IPv6 loopback, answers to [::1]:PORT and localhost, refuses other Hosts")
    func ipv6() async throws {
        let rig = try await WebRig(address: "::1")
        #expect(rig.web.url.hasPrefix("http://[::1]:\(rig.web.port)/#token="))
        #expect(try rig.send("GET", "/api/status").status == 200)
        #expect(try rig.send("GET", "/api/status", headers: ["Host": "localhost:\(rig.web.port)"]).status == 200)
        #expect(
            try rig.send("GET", "/api/status", headers: ["Origin": "http://[::1]:\(rig.web.port)"]).status == 200)
        let other = try rig.send("GET", "/api/status", headers: ["Host": "127.0.0.1:\(rig.web.port)"])
        #expect(other.status == 403)
        #expect(other.body.contains("open the URL that trove web printed ([::1]:\(rig.web.port))"))
        #expect(try rig.send("GET", "/api/status", headers: ["Host": "::1:\(rig.web.port)"]).status == 403)
        #expect(Listener.isLoopback("::1") && Listener.isLoopback("127.0.0.1"))
        #expect(!Listener.isLoopback("::") && !Listener.isLoopback("0.0.0.0") && !Listener.isLoopback("fe80::1"))
    }
}
