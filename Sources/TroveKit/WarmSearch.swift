@preconcurrency import Glibc
import Foundation
import TroveStore

/// `trove serve`'s protocol over a Unix socket beside the index (`INDEX.sock`, mode 0600): the client writes one
/// `SearchRequest` as a JSON line, the server answers one JSON line, `{"hits": [SearchHit]}` or `{"error": "…"}`.
public enum WarmSearch {
    /// The socket for the index at `indexPath`.
    public static func socketPath(forIndex indexPath: String) -> String { indexPath + ".sock" }

    /// The server's answer.
    public struct Response: Codable, Sendable {
        public var hits: [SearchHit]?
        /// The index's embedding model.
        public var model: String?
        public var error: String?

        public init(hits: [SearchHit]? = nil, model: String? = nil, error: String? = nil) {
            self.hits = hits
            self.model = model
            self.error = error
        }
    }

    /// Asks a running `trove serve`; nil when none answers on the socket (no file, refused, or a broken answer),
    /// so the caller searches cold instead. A server-side error is returned as `error` for the caller to judge.
    public static func ask(_ request: SearchRequest, indexPath: String) -> Response? {
        let path = socketPath(forIndex: indexPath)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard connect(descriptor, path: path) else { return nil }
        // A server stuck (say, on a hung model server) must not hang the search: after 30 s it goes cold.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let body = try? JSONEncoder().encode(request), send(descriptor, body + Data([0x0A])) else { return nil }
        shutdown(descriptor, Int32(SHUT_WR))
        guard let answer = receiveAll(descriptor) else { return nil }
        return try? JSONDecoder().decode(Response.self, from: answer)
    }

    /// Listens on the index's socket and answers requests one at a time with `answer`, until the process ends.
    /// A stale socket file (no server behind it) is replaced; a live one is an error.
    public static func serve(indexPath: String, ready: () -> Void, answer: (SearchRequest) async -> Response)
        async throws
    {
        let path = socketPath(forIndex: indexPath)
        guard path.utf8.count < 108 else {
            throw ServeError("socket path \(path) is too long for a Unix socket — move the index to a shorter path")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        if connect(probe, path: path) {
            close(probe)
            throw ServeError("a trove serve is already answering for \(indexPath)")
        }
        close(probe)
        unlink(path)
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ServeError("cannot create a socket: \(String(cString: strerror(errno)))") }
        defer {
            close(listener)
            unlink(path)
        }
        // Only the owner may connect: searches return the index's private text.
        let previous = umask(0o077)
        let bound = withAddress(path) { bind(listener, $0, $1) } == 0
        umask(previous)
        guard bound, listen(listener, 16) == 0 else {
            throw ServeError("cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
        ready()
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                throw ServeError("cannot accept on \(path): \(String(cString: strerror(errno)))")
            }
            var response = Response(error: "bad request")
            if let line = receiveAll(connection), let request = try? JSONDecoder().decode(SearchRequest.self, from: line) {
                response = await answer(request)
            }
            if let body = try? JSONEncoder().encode(response) { _ = send(connection, body + Data([0x0A])) }
            close(connection)
        }
    }

    private static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(107)) + [0]
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    private static func connect(_ descriptor: Int32, path: String) -> Bool {
        descriptor >= 0 && withAddress(path) { Glibc.connect(descriptor, $0, $1) } == 0
    }

    private static func send(_ descriptor: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let put = Glibc.send(descriptor, raw.baseAddress! + done, raw.count - done, Int32(MSG_NOSIGNAL))
                if put < 0, errno == EINTR { continue }
                guard put > 0 else { return false }
                done += put
            }
            return true
        }
    }

    /// Everything up to the first newline or the end of the stream.
    private static func receiveAll(_ descriptor: Int32) -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = recv(descriptor, &buffer, buffer.count, 0)
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            data.append(buffer, count: got)
            if buffer[..<got].contains(0x0A) { break }
        }
        return data.isEmpty ? nil : data
    }
}

/// Why `trove serve` cannot listen.
public struct ServeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A lowercase sentence saying what to do.
    public var message: String

    /// An error with its message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
