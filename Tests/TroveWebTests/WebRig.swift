import Foundation
import Glibc
import Ollama
import OpenAICompatible
import TroveKit
import TroveMCP
import TroveSystem
import TroveTestSupport
import TroveWeb

/// A real index of a few notes (one of them hostile markup; with `pdf`, also a real PDF made by others), embedded and
/// answered by the fake Ollama server, and a `trove web` server over it in this process. `chatServer` adds an
/// OpenAI-compatible chat server (llama.cpp's) beside Ollama.
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

    /// The PDF `pdf` adds: freedesktop.org's Shared MIME-info spec (17 pages, pdfTeX), the extraction tests' fixture.
    static let pdfFixture = repositoryRoot + "/Tests/TroveExtractTests/Fixtures/pdf/shared-mime-info-spec.pdf"

    init(
        kind: StoreKind = .sqlite, chatDelayMilliseconds: Int = 0, limits: HTTPServer.Limits = HTTPServer.Limits(),
        address: String = "127.0.0.1", chatModels: [String] = ["llama3.2"], chatServer: URL? = nil, pdf: Bool = false
    ) async throws {
        ollama = try FakeOllamaServer(models: [.embedding("nomic-embed-text")] + chatModels.map { .chat($0) })
        ollama.streaming.delayMilliseconds = chatDelayMilliseconds
        ollama.streaming.reply = "Use the bastion host as a jump host for every ssh session [1]."
        folder = try TemporaryDirectory()
        try folder.write("notes/ssh.md", "# SSH\n\nConnect through the bastion host with ssh -J bastion.\n")
        try folder.write("notes/garden.md", "# Garden\n\nWater the basil when the soil is dry.\n\nPrune tomatoes.\n")
        try folder.write("notes/hostile.md", Self.hostileNote)
        notes = folder.path + "/notes"
        if pdf { try FileManager.default.copyItem(atPath: Self.pdfFixture, toPath: notes + "/mime-spec.pdf") }
        indexPath = kind == .sqlite ? folder.path + "/i.sqlite" : try await kind.freshLocation(in: folder.path)
        var configuration = TroveConfiguration(
            location: IndexLocation(indexPath), ollama: OllamaClient(baseURL: ollama.baseURL),
            modelFolder: "/nonexistent")
        configuration.extractionWorker = [troveExecutable.path, "extract-worker"]
        configuration.chatServer = chatServer.map { OpenAIClient(baseURL: $0, apiKey: nil) }
        let index = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        for try await _ in try await index.index(IndexOptions(roots: [notes])) {}
        var settings = WebServer.Settings(
            tools: MCPTools.Settings(configuration: configuration, chatModel: "llama3.2", chatModelChosen: false))
        settings.token = Self.token
        settings.limits = limits
        settings.address = address
        web = try WebServer(settings) { _ in }
    }

    deinit { web.stop() }

    var host: String { (address.contains(":") ? "[\(address)]" : address) + ":\(web.port)" }
    var address: String { web.settings.address }

    /// Sends `request` as written (after filling in the defaults) and reads the whole response.
    func send(
        _ method: String, _ target: String, body: String = "", headers: [String: String] = [:], token: Bool = true
    ) throws -> RawResponse {
        var all = ["Host": host, "Connection": "close"]
        if token { all["Authorization"] = "Bearer " + Self.token }
        if !body.isEmpty { all["Content-Length"] = String(body.utf8.count) }
        all.merge(headers) { $1 }
        let head = "\(method) \(target) HTTP/1.1\r\n" + all.map { "\($0): \($1)\r\n" }.joined() + "\r\n"
        let connection = try RawConnection(port: web.port, address: address)
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

    /// Connects to `address` (IPv4, or IPv6 like ::1) on `port`.
    init(port: UInt16, address: String = "127.0.0.1") throws {
        let ipv6 = address.contains(":")
        descriptor = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var connected: Int32 = -1
        if ipv6 {
            var peer = sockaddr_in6()
            peer.sin6_family = sa_family_t(AF_INET6)
            peer.sin6_port = port.bigEndian
            inet_pton(AF_INET6, address, &peer.sin6_addr)
            connected = withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var peer = sockaddr_in()
            peer.sin_family = sa_family_t(AF_INET)
            peer.sin_port = port.bigEndian
            inet_pton(AF_INET, address, &peer.sin_addr)
            connected = withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)  // the deinit's close() must not close the number again
            open = false
            throw POSIXError(.ECONNREFUSED)
        }
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
            // By UTF-8 bytes: "\r\n" is one Character, so dropping two Characters would eat the next size's digit.
            rest = Substring(rest.utf8[end...].dropFirst(2))
        }
        return out
    }
}
