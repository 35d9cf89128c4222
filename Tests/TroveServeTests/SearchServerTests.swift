@preconcurrency import Glibc
import Foundation
import Synchronization
import Testing
import TroveKit
import TroveOutput
import TroveServe
import TroveTestSupport

/// A counter a `@Sendable` closure can bump.
private final class Count: Sendable {
    let value = Atomic<Int>(0)
}

/// A `SearchServer.serve` in this process, answering every valid request with one fixed hit.
private final class Server: Sendable {
    let folder: TemporaryDirectory
    let indexPath: String
    let stop = StopSignal()
    let answered = Count()
    private let task: Task<Void, any Error>
    static let admission = SearchServer.Admission(ollama: "http://127.0.0.1:11434", builtinModels: "/m", openAI: "")

    init(limits: SearchServer.Limits = SearchServer.Limits(), admission: SearchServer.Admission = Server.admission) async throws {
        folder = try TemporaryDirectory()
        indexPath = folder.path + "/i.sqlite"
        let (path, stop, answered) = (indexPath, stop, answered)
        let started = AsyncStream<Void>.makeStream()
        task = Task.detached {
            try await SearchServer.serve(
                location: IndexLocation(path), admission: admission, limits: limits, stop: stop,
                ready: { started.continuation.yield() }
            ) { request, printing in
                answered.value.add(1, ordering: .relaxed)
                // A printing client gets text: its own settings back, and for "big" more than a socket buffer holds.
                if let printing {
                    let size = request.query == "big" ? 200_000 : 1
                    return SearchServer.Response(
                        output: String(repeating: "\(printing.format.rawValue) \(printing.currentDirectory)\n", count: size),
                        count: 1, model: "m")
                }
                var hit = SearchHit(
                    rank: 1, chunkID: 7, rootPath: "/r", relativePath: "a.md", startLine: 1, endLine: 2, heading: "",
                    score: 0.5, text: request.query)
                hit.documentID = 3
                return SearchServer.Response(hits: [hit], model: "m")
            }
        }
        for await _ in started.stream { break }
    }

    var socketPath: String { SearchServer.socketPath(for: IndexLocation(indexPath)) }

    func finish() async throws {
        stop.stop()
        try await task.value
    }
}

/// Sends `bytes` on a fresh connection (optionally nothing, or only part) and reads the reply line.
private func exchange(_ path: String, _ bytes: [UInt8], closeWrite: Bool = true) -> Data {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard connected == 0 else { return Data() }
    var timeout = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var sent = 0
    while sent < bytes.count {
        let put = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if put <= 0 { break }
        sent += put
    }
    if closeWrite { shutdown(descriptor, Int32(SHUT_WR)) }
    var reply = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let got = recv(descriptor, &buffer, buffer.count, 0)
        if got <= 0 { break }
        reply += buffer[..<got]
    }
    return Data(reply)
}

/// A reply line as a JSON object.
private func object(_ data: Data) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

private func envelope(_ request: String, protocol version: Int = SearchServer.protocolVersion) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .withoutEscapingSlashes
    let admission = String(decoding: try! encoder.encode(Server.admission), as: UTF8.self)
    return Array(#"{"protocol": \#(version), "embedding": \#(admission), "request": \#(request)}"#.utf8) + [0x0A]
}

/// A valid request as the client encodes it (every field), compact JSON.
private let validJSON = String(
    decoding: try! JSONEncoder().encode(SearchRequest(query: "q", mode: .keyword, limit: 5, candidateDepth: 10)),
    as: UTF8.self)

/// The request with `key` set to the raw JSON `value` (added when the encoder left it out, as it does for nil).
private func request(_ key: String = "", _ value: String = "") -> String {
    guard !key.isEmpty else { return validJSON }
    if let range = validJSON.range(of: "\"\(key)\":[^,}]*", options: .regularExpression) {
        return validJSON.replacingCharacters(in: range, with: "\"\(key)\":\(value)")
    }
    return "{\"\(key)\":\(value)," + validJSON.dropFirst()
}

private let valid = request()

/// Runs `body` on a thread of its own (blocking socket calls must not hold the test pool).
private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in Thread.detachNewThread { continuation.resume(returning: body()) } }
}

@Suite("trove serve's socket treats clients as untrusted")
struct SearchServerTests {
    @Test(
        "out-of-range numbers get an error reply and the server keeps answering",
        arguments: [
            ("fusionConstant", "-1", "bad request: fusion constant must be 0 or more, got -1.0"),
            ("limit", "1000000000", "bad request: limit must be from 0 to 10000, got 1000000000"),
            ("limit", "-3", "bad request: limit must be 0 or more, got -3"),
            ("candidateDepth", "0", "bad request: candidate depth must be 1 or more, got 0"),
            ("candidateDepth", "5000000", "bad request: candidate depth must be from 1 to 100000, got 5000000"),
            ("minScore", "7", "bad request: minimum score is a cosine similarity, -1…1, got 7.0"),
            ("keywordWeight", "-1e300", "bad request: keyword weight must be 0 or more, got -1e+300"),
            // Foundation's decoder calls an integer field holding 1e30 invalid JSON, without a path.
            ("limit", "1e30", "bad request: not a valid request"),
            ("mode", #""psychic""#, "bad request: bad value for 'request.mode'"),
            ("query", "null", "bad request: bad value for 'request.query'"),
        ])
    func validation(key: String, value: String, message: String) async throws {
        let server = try await Server()
        let request = request(key, value)
        let path = server.socketPath
        let refused = object(await blocking { exchange(path, envelope(request)) })
        #expect(refused?["error"] as? String == message)
        #expect(refused?["code"] as? String == "bad-request")
        #expect(server.answered.value.load(ordering: .relaxed) == 0)
        let answered = object(await blocking { exchange(path, envelope(valid)) })
        #expect((answered?["hits"] as? [Any])?.count == 1)
        try await server.finish()
    }

    @Test("garbage, an old-protocol request and an oversized one are refused with a reason")
    func refusals() async throws {
        var limits = SearchServer.Limits()
        limits.requestBytes = 4096
        let server = try await Server(limits: limits)
        let path = server.socketPath
        let garbage = object(await blocking { exchange(path, Array("\u{1}\u{2}not json\n".utf8)) })
        #expect(garbage?["code"] as? String == "bad-request")
        let old = object(await blocking { exchange(path, Array(valid.utf8) + [0x0A]) })
        #expect(old?["code"] as? String == "protocol")
        #expect(old?["protocol"] as? Int == SearchServer.protocolVersion)
        let huge = object(await blocking { exchange(path, [UInt8](repeating: 0x20, count: 1_000_000)) })
        #expect(huge?["error"] as? String == "request is over 4096 bytes")
        let other = object(await blocking { exchange(path, envelope(valid).replacingPrefixOfEmbedding()) })
        #expect(other?["code"] as? String == "embedding")
        #expect(server.answered.value.load(ordering: .relaxed) == 0)
        try await server.finish()
    }

    @Test("a client that connects and sends nothing does not delay another client's search")
    func silentClient() async throws {
        var limits = SearchServer.Limits()
        limits.ioTimeout = .seconds(20)
        let server = try await Server(limits: limits)
        let path = server.socketPath
        // Three silent connections, held open while a real search runs.
        let silent = (0..<3).map { _ in socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0) }
        for descriptor in silent {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        defer { silent.forEach { close($0) } }
        let start = ContinuousClock.now
        let indexPath = server.indexPath
        let response = await blocking {
            SearchServer.ask(SearchRequest(query: "q", mode: .keyword), location: IndexLocation(indexPath), admission: Server.admission)
        }
        #expect(response?.hits?.first?.text == "q")
        // Served while the silent ones wait out their 20 s each (a server reading one client at a time would take
        // 60 s, and one that read even one silent client first, 20 s): under that, with room for a full suite's
        // first minute on 2 cores (10.8 s seen).
        #expect(ContinuousClock.now - start < .seconds(15))
        try await server.finish()
    }

    @Test("a client that sends how it prints gets its output, whole even when it is more than a socket buffer holds")
    func printingClient() async throws {
        let server = try await Server()
        let indexPath = server.indexPath
        let printing = OutputStyle(
            format: .jsonl, color: false, escapeControls: true, explain: false, nullTerminated: false,
            currentDirectory: "/home/ü \"x\"")
        for query in ["q", "big"] {
            let response = await blocking {
                SearchServer.ask(
                    SearchRequest(query: query, mode: .keyword), style: printing, location: IndexLocation(indexPath),
                    admission: Server.admission)
            }
            let line = "jsonl /home/ü \"x\"\n"
            #expect(response?.output == String(repeating: line, count: query == "big" ? 200_000 : 1))
            #expect(response?.count == 1)
            #expect(response?.hits == nil)
        }
        try await server.finish()
    }

    @Test("a client with other embedding settings or another protocol searches on its own, told once why")
    func clientRefusals() async throws {
        let server = try await Server()
        let indexPath = server.indexPath
        let warnings = Mutex<[String]>([])
        for _ in 0..<2 {
            let response = await blocking {
                SearchServer.ask(
                    SearchRequest(query: "q", mode: .keyword), location: IndexLocation(indexPath),
                    admission: SearchServer.Admission(ollama: "http://other:1", builtinModels: "/m", openAI: ""),
                    warn: { message in warnings.withLock { $0.append(message) } })
            }
            #expect(response == nil)
        }
        #expect(
            warnings.withLock { $0 } == [
                "the running trove serve embeds with \(Server.admission), this search asked for "
                    + "ollama at http://other:1, built-in models in /m, no OpenAI-compatible server — searching without it"
            ])
        try await server.finish()
    }

    @Test("a setting the index does not use (another Ollama beside a built-in index) still gets the server's answer")
    func unusedSettingsAgree() async throws {
        let server = try await Server(admission: Server.admission.used(by: .builtin))
        let indexPath = server.indexPath
        let otherOllama = SearchServer.Admission(ollama: "http://other:1", builtinModels: "/m", openAI: "http://x/v1")
        let answered = await blocking {
            SearchServer.ask(SearchRequest(query: "q", mode: .keyword), location: IndexLocation(indexPath), admission: otherOllama)
        }
        #expect(answered?.hits?.count == 1)
        let otherModels = SearchServer.Admission(ollama: "http://127.0.0.1:11434", builtinModels: "/elsewhere", openAI: "")
        let refused = await blocking {
            SearchServer.ask(SearchRequest(query: "q", mode: .keyword), location: IndexLocation(indexPath), admission: otherModels)
        }
        #expect(refused == nil)
        #expect(server.answered.value.load(ordering: .relaxed) == 1)
        try await server.finish()
    }

    @Test("a socket owned by another user is not used, and the client says why")
    func foreignSocket() async throws {
        let server = try await Server()
        let indexPath = server.indexPath
        let path = server.socketPath
        // Only root can give the socket away; a plain user's run checks the same path in `clientRefusals`.
        guard getuid() == 0 else {
            withKnownIssue("needs root to chown the socket to another user") { Issue.record("skipped") }
            try await server.finish()
            return
        }
        #expect(chown(path, 65534, 65534) == 0)
        let warnings = Mutex<[String]>([])
        let response = await blocking {
            SearchServer.ask(
                SearchRequest(query: "q", mode: .keyword), location: IndexLocation(indexPath), admission: Server.admission,
                warn: { message in warnings.withLock { $0.append(message) } })
        }
        #expect(response == nil)
        #expect(
            warnings.withLock { $0 } == [
                "not using \(path): it belongs to uid 65534, not to you (uid 0) — searching without it; "
                    + "remove it if you did not expect another user's server"
            ])
        #expect(server.answered.value.load(ordering: .relaxed) == 0)
        try await server.finish()
    }

    @Test("stopping the server removes its socket")
    func stopRemovesSocket() async throws {
        let server = try await Server()
        #expect(FileManager.default.fileExists(atPath: server.socketPath))
        try await server.finish()
        #expect(!FileManager.default.fileExists(atPath: server.socketPath))
    }

    @Test("decode checks the same things the server does", arguments: ["", "{}", "[]", "null", #"{"protocol": 4}"#])
    func decodeRefuses(line: String) {
        guard case .failure = SearchServer.decode(Data(line.utf8), admission: Server.admission) else {
            Issue.record("accepted \(line)")
            return
        }
    }
}

extension Array where Element == UInt8 {
    /// The same envelope with another embedding string.
    fileprivate func replacingPrefixOfEmbedding() -> [UInt8] {
        Array(String(decoding: self, as: UTF8.self).replacingOccurrences(of: "/m\"", with: "/elsewhere\"").utf8)
    }
}
