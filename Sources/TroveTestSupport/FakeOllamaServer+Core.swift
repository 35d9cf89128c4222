import Dispatch
import Foundation
@preconcurrency import Glibc

/// The socket side of the fake: listening, one thread per connection, HTTP/1.1 framing and replies.
extension FakeOllamaServer {
    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// The failing call, e.g. `bind`.
        public var call: String
        /// `errno` after it.
        public var code: Int32
        /// E.g. `fake ollama server: bind failed: Address already in use`.
        public var description: String { "fake ollama server: \(call) failed: \(String(cString: strerror(code)))" }
    }

    /// The server's insides, shared with its threads.
    final class Core: @unchecked Sendable {  // mutable state behind `lock`; fds and port fixed after init
        let port: UInt16
        let models: [Model]
        private let listenFD: Int32
        private let lock = NSLock()
        var currentFault: Fault = .normal
        var embedFailures: (remaining: Int, status: Int, message: String)?
        var poisonedText: String?
        var digestOverride: String?
        private(set) var stopped = false
        private var connections: Set<Int32> = []
        var requestCounts: [String: Int] = [:]
        var batchSizes: [Int] = []
        var embeddedTotal = 0
        var acceptedConnections = 0
        var lastBodies: [String: Data] = [:]
        /// State of the endpoints in FakeOllamaServer+Generation.swift.
        let extras = Extras()
        private let threads = DispatchGroup()

        init(models: [Model], port: UInt16) throws {
            self.models = models
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw StartError(call: "socket", code: errno) }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                throw StartError(call: "bind", code: code)
            }
            guard listen(fd, 128) == 0 else {
                let code = errno
                Glibc.close(fd)
                throw StartError(call: "listen", code: code)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.port = UInt16(bigEndian: address.sin_port)
            self.listenFD = fd
            threads.enter()
            let thread = Thread { [self] in
                acceptLoop()
                threads.leave()
            }
            thread.name = "FakeOllamaServer.accept"
            thread.start()
        }

        /// Closes the port and every connection; waits (up to 2 s) for the threads to end. Idempotent.
        func stop() {
            let open: [Int32]? = locked {
                if stopped { return nil }
                stopped = true
                // Wakes the threads blocked in accept/recv; each closes its own descriptor.
                shutdown(listenFD, Int32(SHUT_RDWR))
                for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
                return Array(connections)
            }
            guard open != nil else { return }
            _ = threads.wait(timeout: .now() + 2)
        }

        // MARK: - Threads

        func locked<T>(_ body: () throws -> T) rethrows -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }

        private func acceptLoop() {
            defer { Glibc.close(listenFD) }
            while true {
                let fd = accept(listenFD, nil, nil)
                if fd < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                let admitted: Bool = locked {
                    if stopped { return false }
                    connections.insert(fd)
                    acceptedConnections += 1
                    return true
                }
                guard admitted else {
                    Glibc.close(fd)
                    return
                }
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                threads.enter()
                let thread = Thread { [self] in
                    serve(fd)
                    locked { _ = connections.remove(fd) }
                    Glibc.close(fd)
                    threads.leave()
                }
                thread.name = "FakeOllamaServer.connection"
                thread.start()
            }
        }

        /// One parsed HTTP request.
        struct Request {
            var method: String
            var path: String
            var headers: [String: String]
            var body: [UInt8]
        }

        /// Serves requests on `fd` until the peer closes, asks to close, or the server stops.
        private func serve(_ fd: Int32) {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                // Read until the headers are complete.
                var headerEnd: Int? = Self.find([13, 10, 13, 10], in: buffer)
                while headerEnd == nil {
                    guard let read = receive(fd, into: &chunk), read > 0 else { return }
                    buffer.append(contentsOf: chunk[0..<read])
                    headerEnd = Self.find([13, 10, 13, 10], in: buffer)
                }
                guard let end = headerEnd,
                    var request = Self.parseHead(String(decoding: buffer[0..<end], as: UTF8.self))
                else {
                    _ = sendAll(
                        fd, Self.response(status: 400, contentType: "text/plain", body: Array("bad request".utf8)))
                    return
                }
                buffer.removeFirst(end + 4)
                guard let length = Int(request.headers["content-length"] ?? "0"), length >= 0 else {
                    _ = sendAll(
                        fd, Self.response(status: 411, contentType: "text/plain", body: Array("length required".utf8)))
                    return
                }
                if request.headers["expect"]?.lowercased() == "100-continue" && buffer.count < length {
                    guard sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
                }
                while buffer.count < length {
                    guard let read = receive(fd, into: &chunk), read > 0 else { return }
                    buffer.append(contentsOf: chunk[0..<read])
                }
                request.body = Array(buffer[0..<length])
                buffer.removeFirst(length)

                // Streaming endpoints write their reply piece by piece (FakeOllamaServer+Generation.swift).
                if let keepOpen = serveExtended(request, fd: fd) {
                    if !keepOpen || request.headers["connection"]?.lowercased() == "close" { return }
                    continue
                }
                let reply = handle(request)
                if locked({ stopped }) { return }
                guard sendAll(fd, reply) else { return }
                if request.headers["connection"]?.lowercased() == "close" { return }
            }
        }

        /// `recv` that retries on EINTR; nil on error.
        private func receive(_ fd: Int32, into chunk: inout [UInt8]) -> Int? {
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                return count < 0 ? nil : count
            }
        }

        static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
            guard haystack.count >= needle.count else { return nil }
            for start in 0...(haystack.count - needle.count)
            where haystack[start] == needle[0] && Array(haystack[start..<start + needle.count]) == needle {
                return start
            }
            return nil
        }

        static func parseHead(_ head: String) -> Request? {
            let lines = head.components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
            var path = String(parts[1])
            if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
            return Request(method: String(parts[0]), path: path, headers: headers, body: [])
        }

        static func response(status: Int, contentType: String, body: [UInt8]) -> [UInt8] {
            let reasons = [
                200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 411: "Length Required",
                500: "Internal Server Error", 503: "Service Unavailable",
            ]
            let head =
                "HTTP/1.1 \(status) \(reasons[status] ?? "Status")\r\n"
                + "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
                + "Date: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n"
            return Array(head.utf8) + body
        }

        static func json(_ status: Int, _ text: String) -> [UInt8] {
            response(status: status, contentType: "application/json; charset=utf-8", body: Array(text.utf8))
        }

        static func errorJSON(_ status: Int, _ message: String) -> [UInt8] {
            json(status, "{\"error\":\(quote(message))}")
        }

        static func quote(_ text: String) -> String {
            let data = try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
            let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
            return String(array.dropFirst().dropLast())
        }

        /// Sends all of `bytes`; false when the peer is gone (no SIGPIPE).
        func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes {
                    send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                if sent < 0 && errno == EINTR { continue }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }
}
