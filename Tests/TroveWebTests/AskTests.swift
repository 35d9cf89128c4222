import Foundation
import Testing
import TroveKit
import TroveSystem
import TroveTestSupport
import TroveTestTraits

@testable import TroveWeb

@Suite("trove web: asking as Server-Sent Events, and the chat sessions", .offCooperativePool)
struct AskTests {
    /// The events of a stream as they arrive, each with the number of the read that brought it.
    static func events(_ connection: RawConnection, until stop: (String) -> Bool = { $0 == "done" || $0 == "error" })
        -> [(name: String, data: JSON, read: Int)]
    {
        var events: [(String, JSON, Int)] = []
        var buffer = ""
        var reads = 0
        while true {
            let piece = connection.read()
            if piece.isEmpty { return events }
            reads += 1
            buffer += String(decoding: piece, as: UTF8.self)
            while let range = buffer.range(of: "\n\n") {
                let block = String(buffer[..<range.lowerBound])
                buffer = String(buffer[range.upperBound...])
                // By Character: a chunk's "\r\n" is one Character, which splitting on "\n" would not cut.
                let lines = block.split(whereSeparator: \.isNewline)
                guard let name = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7),
                    let data = lines.first(where: { $0.hasPrefix("data: ") })?.dropFirst(6)
                else { continue }
                events.append((String(name), JSON.parse(Data(data.utf8)) ?? .null, reads))
                if stop(String(name)) { return events }
            }
        }
    }

    static func startAsk(_ rig: WebRig, _ body: String) throws -> RawConnection {
        let connection = try RawConnection(port: rig.web.port)
        try connection.write(
            "POST /api/ask HTTP/1.1\r\nHost: \(rig.host)\r\nAuthorization: Bearer \(WebRig.token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        return connection
    }

    @Test(
        "tokens arrive one by one as the model writes them, then the sources, checks and warnings",
        arguments: StoreKind.available)
    func streamed(kind: StoreKind) async throws {
        // 400 ms a token: far apart enough that a reader kept waiting by a loaded machine still sees them in several
        // reads (at 150 ms the whole suite on two cores once coalesced them into two).
        let rig = try await WebRig(kind: kind, chatDelayMilliseconds: 400)
        // Three sentences, ~14 s of answer: for them all to reach the reader in one read, the whole suite on two
        // cores would have to hold the answer's consumer for all of it (it once held a 5 s answer).
        let sentence = "Use the bastion host as a jump host for every ssh session [1]."
        rig.ollama.streaming.reply = [sentence, sentence, sentence].joined(separator: " ")
        let connection = try Self.startAsk(rig, #"{"question": "how do I ssh through the bastion?", "session": "web"}"#)
        let events = Self.events(connection)
        let tokens = events.filter { $0.name == "token" }
        #expect(tokens.count >= 5)
        // Streamed, not buffered: the tokens came in many reads, the first long before the answer's end.
        #expect(Set(tokens.map(\.read)).count >= 3)
        #expect((tokens.first?.read ?? 0) < (events.last?.read ?? 0))
        let done = try #require(events.last { $0.name == "done" }?.data)
        #expect(done["mode"] == "generated")
        #expect(done["answer"] == .string(rig.ollama.streaming.reply))
        #expect(done["sources"]?.arrayValue?.first?["path"] == .string(rig.notes + "/ssh.md"))
        #expect(done["warnings"] == [])
        #expect(done["interrupted"] == false)
        // The exchange is stored in the session, as trove chat stores it.
        let session = try rig.json("/api/sessions/web")
        #expect(session["turns"]?.arrayValue?.map { $0["role"] } == ["user", "assistant"])
        #expect(
            session["turns"]?.arrayValue?.last?["sources"]?.arrayValue?.first?.stringValue?.hasPrefix(
                "[1] " + rig.notes + "/ssh.md:") == true)
    }

    @Test("closing the stream (Stop) cancels the answer on the server, stored as interrupted")
    func stop() async throws {
        let rig = try await WebRig(chatDelayMilliseconds: 300)
        // An answer of ~100 s: even if a loaded machine holds its first token back for a while (the whole suite once
        // held a 4 s answer until its end), the client still closes long before the model is done.
        rig.ollama.streaming.reply = Array(repeating: "Use the bastion host as a jump host [1].", count: 40)
            .joined(separator: " ")
        let connection = try Self.startAsk(
            rig, #"{"question": "how do I ssh through the bastion?", "session": "stopped"}"#)
        let first = Self.events(connection) { $0 == "token" }
        #expect(first.count == 1)
        connection.close()
        let deadline = ContinuousClock.now + .seconds(10)
        var turns: [JSON] = []
        while ContinuousClock.now < deadline {
            turns = try rig.json("/api/sessions/stopped")["turns"]?.arrayValue ?? []
            if !turns.isEmpty { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(turns.count == 2)
        #expect(turns.last?["interrupted"] == true)
        // The model's stream was abandoned too: the fake notices at its next write, a line's delay later.
        let abandoned = ContinuousClock.now + .seconds(5)
        while rig.ollama.abandonedStreamCount < 1, ContinuousClock.now < abandoned {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(rig.ollama.abandonedStreamCount >= 1)
    }

    @Test("sessions: listed, read, created, renamed and deleted; mistakes are clear")
    func sessions() async throws {
        let rig = try await WebRig()
        #expect(try rig.json("/api/sessions")["sessions"] == [])
        let created = try rig.send("POST", "/api/sessions", body: #"{"name": "plans"}"#)
        #expect(created.status == 201)
        _ = Self.events(try Self.startAsk(rig, #"{"question": "basil?", "session": "plans"}"#))
        let list = try rig.json("/api/sessions")["sessions"]?.arrayValue ?? []
        #expect(list.map { $0["name"] } == ["plans"])
        #expect(list.first?["messages"] == 2)
        #expect(try rig.send("PATCH", "/api/sessions/plans", body: #"{"name": "garden plans"}"#).status == 200)
        #expect(try rig.json("/api/sessions/garden%20plans")["turns"]?.arrayValue?.count == 2)
        let missing = try rig.send("GET", "/api/sessions/plans")
        #expect(missing.status == 400)
        #expect(missing.body.contains("no chat session named 'plans'"))
        _ = try rig.send("POST", "/api/sessions", body: #"{"name": "other"}"#)
        let taken = try rig.send("PATCH", "/api/sessions/other", body: #"{"name": "garden plans"}"#)
        #expect(taken.body.contains("exists already"))
        #expect(try rig.send("DELETE", "/api/sessions/garden%20plans").status == 200)
        #expect(try rig.json("/api/sessions")["sessions"]?.arrayValue?.map { $0["name"] } == ["other"])
    }

    @Test("a malformed ask is refused before anything streams")
    func malformed() async throws {
        let rig = try await WebRig()
        #expect(try rig.send("POST", "/api/ask", body: "nope").status == 400)
        #expect(try rig.send("POST", "/api/ask", body: #"{"question": " "}"#).body.contains("non-empty question"))
        #expect(
            try rig.send("POST", "/api/ask", body: #"{"question": "x", "temperature": 2}"#).body.contains(
                "no member 'temperature'"))
        #expect(try rig.send("POST", "/api/ask", body: #"{"question": "x", "limit": 99}"#).status == 400)
    }
}
