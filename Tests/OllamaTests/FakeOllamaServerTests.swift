import Foundation
@preconcurrency import Glibc
import Testing
import TroveTestSupport

/// A bare TCP client, to send HTTP in pieces the way URLSession never would.
final class RawConnection {
    let fd: Int32
    /// Bytes read past the previous response (pipelining).
    private var buffer: [UInt8] = []

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        struct Refused: Error {}
        // No close here: the object is whole, so its deinit closes the descriptor (once) when init throws.
        guard result == 0 else { throw Refused() }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads one response: status code and body.
    func readResponse() -> (status: Int, body: String)? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        func headEnd() -> Int? {
            guard buffer.count >= 4 else { return nil }
            return (0...(buffer.count - 4)).first { Array(buffer[$0..<$0 + 4]) == [13, 10, 13, 10] }
        }
        while headEnd() == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer += chunk[0..<count]
        }
        let end = headEnd()!
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        let status = Int(head.split(separator: " ")[1]) ?? 0
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        let length = Int(lengthLine?.split(separator: ":")[1].trimmingCharacters(in: .whitespaces) ?? "0") ?? 0
        while buffer.count < end + 4 + length {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer += chunk[0..<count]
        }
        let body = Array(buffer[(end + 4)..<(end + 4 + length)])
        buffer.removeFirst(end + 4 + length)
        return (status, String(decoding: body, as: UTF8.self))
    }
}

@Suite("the fake Ollama server")
struct FakeOllamaServerTests {
    @Test("headers and body arriving in pieces still make one request")
    func partialReads() async throws {
        let server = try FakeOllamaServer()
        let connection = try RawConnection(port: server.port)
        let body = #"{"model":"nomic-embed-text","input":"hello world"}"#
        let request =
            "POST /api/embed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        var rest = Substring(request)
        while !rest.isEmpty {
            connection.send(String(rest.prefix(7)))
            rest = rest.dropFirst(7)
            try await Task.sleep(for: .milliseconds(2))
        }
        let reply = try #require(connection.readResponse())
        #expect(reply.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any])
        #expect((json["embeddings"] as? [[Double]])?.count == 1)
    }

    @Test("one connection carries several requests (keep-alive), pipelined or not")
    func keepAlive() throws {
        let server = try FakeOllamaServer()
        let connection = try RawConnection(port: server.port)
        for _ in 0..<3 {
            connection.send("GET /api/version HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = try #require(connection.readResponse())
            #expect(reply.status == 200)
            #expect(reply.body == #"{"version":"0.9.0"}"#)
        }
        connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(connection.readResponse()?.body == "Ollama is running")
        let missing = try #require(connection.readResponse())
        #expect(missing.status == 404)
        #expect(server.requestCount(path: "/api/version") == 3)
        #expect(server.totalRequestCount == 5)
    }

    @Test("stop closes the port and ends open connections")
    func stop() throws {
        let server = try FakeOllamaServer()
        let connection = try RawConnection(port: server.port)
        connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(connection.readResponse()?.status == 200)
        server.stop()
        #expect(connection.readResponse() == nil)
        // Held so that no other test's server can be given the freed port before the check.
        if let reserved = try? ClosedPort(port: server.port) {
            #expect(throws: (any Error).self) { try RawConnection(port: server.port) }
            withExtendedLifetime(reserved) {}
        }
        server.stop()
    }

    @Test("the vector for a text is deterministic, unit length, and similar for shared words")
    func embedding() {
        let a = FakeOllamaServer.embedding(for: "Swift concurrency with actors", dimension: 64)
        let b = FakeOllamaServer.embedding(for: "swift CONCURRENCY, actors!", dimension: 64)
        let c = FakeOllamaServer.embedding(for: "baking sourdough bread at home", dimension: 64)
        func dot(_ x: [Float], _ y: [Float]) -> Float { zip(x, y).reduce(0) { $0 + $1.0 * $1.1 } }
        #expect(a == FakeOllamaServer.embedding(for: "Swift concurrency with actors", dimension: 64))
        #expect(abs(dot(a, a) - 1) < 1e-5)
        #expect(dot(a, b) > 0.8)
        #expect(dot(a, c) < 0.5)
        let empty = FakeOllamaServer.embedding(for: "", dimension: 8)
        #expect(empty == [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(FakeOllamaServer.embedding(for: "  ...  ", dimension: 8) == empty)
    }

    @Test("a single string input is one text; untruncated long input is refused")
    func inputShapes() throws {
        let server = try FakeOllamaServer(models: [.embedding("tiny", dimension: 8, contextLength: 3)])
        let connection = try RawConnection(port: server.port)
        func post(_ body: String) -> (status: Int, body: String)? {
            connection.send(
                "POST /api/embed HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return connection.readResponse()
        }
        let single = try #require(post(#"{"model":"tiny","input":"a b"}"#))
        #expect(single.status == 200)
        #expect(single.body.contains(#""prompt_eval_count":2"#))
        let long = try #require(post(#"{"model":"tiny","input":["a b c d e"],"truncate":false}"#))
        #expect(long.status == 400)
        #expect(long.body == #"{"error":"the input length exceeds the context length"}"#)
        #expect(server.embedBatchSizes == [1])
    }

    @Test("a fixed port can be asked for")
    func fixedPort() throws {
        // A port below the kernel's ephemeral range, so no other test's server (bound to port 0) can take it.
        let port = try #require((24_000..<25_000).lazy.map(UInt16.init).first { (try? ClosedPort(port: $0)) != nil })
        let second = try FakeOllamaServer(port: port)
        #expect(second.port == port)
        #expect(second.baseURL.absoluteString == "http://127.0.0.1:\(port)")
    }
}
