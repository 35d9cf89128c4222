import Foundation
import Glibc
import Ollama
import TroveKit
import TroveMCP
import TroveSystem
import TroveTestSupport
import TroveWeb

/// A real index of a few notes (one of them hostile markup), embedded and answered by the fake Ollama server, and a
/// `trove web` server over it in this process.
final class WebRig: Sendable {
    static let token = String(repeating: "ab12", count: 16)
    /// A note that tries to run script in the page.
    static let hostileNote = """
        # Hostile <script>window.__pwned = 1</script>

        Gardening tips <img src=x onerror="window.__pwned = 2"> water the basil <b>daily</b>.
        <script>window.__pwned = 3</script>
        """

    let ollama: FakeOllamaServer
    let folder: TemporaryDirectory
    let notes: String
    let indexPath: String
    let web: WebServer

    init(kind: StoreKind = .sqlite, chatDelayMilliseconds: Int = 0, limits: HTTPServer.Limits = HTTPServer.Limits())
        async throws
    {
        ollama = try FakeOllamaServer(models: [.embedding("nomic-embed-text"), .chat("llama3.2")])
        ollama.streaming.delayMilliseconds = chatDelayMilliseconds
        ollama.streaming.reply = "Use the bastion host as a jump host for every ssh session [1]."
        folder = try TemporaryDirectory()
        try folder.write("notes/ssh.md", "# SSH\n\nConnect through the bastion host with ssh -J bastion.\n")
        try folder.write("notes/garden.md", "# Garden\n\nWater the basil when the soil is dry.\n\nPrune tomatoes.\n")
        try folder.write("notes/hostile.md", Self.hostileNote)
        notes = folder.path + "/notes"
        indexPath = kind == .sqlite ? folder.path + "/i.sqlite" : try await kind.freshLocation(in: folder.path)
        let configuration = TroveConfiguration(
            location: IndexLocation(indexPath), ollama: OllamaClient(baseURL: ollama.baseURL),
            modelFolder: "/nonexistent")
        let index = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        for try await _ in try await index.index(IndexOptions(roots: [notes])) {}
        var settings = WebServer.Settings(
            tools: MCPTools.Settings(configuration: configuration, chatModel: "llama3.2", chatModelChosen: false))
        settings.token = Self.token
        settings.limits = limits
        web = try WebServer(settings) { _ in }
    }

    deinit { web.stop() }

    var host: String { "127.0.0.1:\(web.port)" }

    /// Sends `request` as written (after filling in the defaults) and reads the whole response.
    func send(
        _ method: String, _ target: String, body: String = "", headers: [String: String] = [:], token: Bool = true
    ) throws -> RawResponse {
        var all = ["Host": host, "Connection": "close"]
        if token { all["Authorization"] = "Bearer " + Self.token }
        if !body.isEmpty { all["Content-Length"] = String(body.utf8.count) }
        all.merge(headers) { $1 }
        let head = "\(method) \(target) HTTP/1.1\r\n" + all.map { "\($0): \($1)\r\n" }.joined() + "\r\n"
        let connection = try RawConnection(port: web.port)
        try connection.write(head + body)
        return RawResponse(try connection.readAll())
    }

    /// GET `target` with the token; its JSON.
    func json(_ target: String) throws -> JSON {
        let response = try send("GET", target)
        return JSON.parse(Data(response.body.utf8)) ?? .null
    }
}

/// A TCP connection to the server, written and read by hand so every byte of a request is the test's.
final class RawConnection {
    let descriptor: Int32
    /// False once closed: the descriptor is closed exactly once, since a second close would hit whatever file or
    /// socket another test opened under the same number since (seen in CI: an index read as malformed, a fake
    /// Ollama's port that stopped answering).
    private var open = true

    init(port: UInt16) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close() }

    /// Closes the connection (the client going away); later calls do nothing.
    func close() {
        guard open else { return }
        open = false
        Glibc.close(descriptor)
    }

    func write(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw POSIXError(.EPIPE) }
            sent += count
        }
    }

    /// The next bytes that arrive; empty at the end.
    func read() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? Array(buffer[..<count]) : []
    }

    func readAll() throws -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let piece = read()
            if piece.isEmpty { return all }
            all += piece
        }
    }
}

/// A response as read from the wire.
struct RawResponse {
    var status: Int
    var headers: [String: String]
    var body: String

    init(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first?.components(separatedBy: "\r\n") ?? []
        status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        self.headers = headers
        var body = parts.dropFirst().joined(separator: "\r\n\r\n")
        if headers["transfer-encoding"] == "chunked" { body = Self.unchunked(body) }
        self.body = body
    }

    /// A chunked body joined.
    static func unchunked(_ text: String) -> String {
        var rest = Substring(text)
        var out = ""
        while let line = rest.range(of: "\r\n") {
            guard let size = Int(rest[..<line.lowerBound], radix: 16), size > 0 else { break }
            let start = line.upperBound
            let end = rest.utf8.index(start, offsetBy: size)
            out += rest[start..<end]
            rest = rest[end...].dropFirst(2)
        }
        return out
    }
}
