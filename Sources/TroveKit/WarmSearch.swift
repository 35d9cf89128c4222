@preconcurrency import Glibc
import Foundation
import Synchronization
import TroveStore

/// `trove serve`'s protocol over a Unix socket beside the index (`INDEX.sock`, mode 0600): the client writes one
/// `Envelope` (protocol version, its embedding settings, a `SearchRequest`, and how it prints hits) as a JSON line,
/// the server answers one JSON line: `{"protocol": 4, "output": "…", "count": N}` (the client's stdout, made by the
/// server, which has Codable and the formatting warm), `{"protocol": 4, "hits": [SearchHit]}` for a client that
/// prints nothing, or `{"protocol": 4, "error": "…", "code": "…"}`.
///
/// Both ends treat the other as untrusted: sizes are capped, every read and write has a timeout, requests are
/// validated before they reach the search, the socket must belong to the user on both sides (`st_uid` of the
/// file, `SO_PEERCRED` of the connection), and each connection is read and written on a thread of its own, so a
/// silent or slow client never delays another's search (searches themselves run one at a time, in order).
public enum WarmSearch {
    /// The protocol both ends speak; a client refuses any other (the server answers, the client searches alone).
    public static let protocolVersion = 4

    /// The socket for the index at `indexPath`: beside a SQLite file; for a PostgreSQL URL, which has no folder of
    /// its own, `/tmp/trove-UID-HASH.sock` (HASH of the URL without its password: one server per user and index,
    /// and the owner check below refuses another user's socket of that name).
    public static func socketPath(forIndex indexPath: String) -> String {
        guard StoreLocation.isPostgres(indexPath) else { return indexPath + ".sock" }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in StoreLocation.display(indexPath).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return "/tmp/trove-\(getuid())-\(String(hash, radix: 16)).sock"
    }

    /// Sizes and timeouts of the protocol.
    public struct Limits: Sendable {
        /// The longest request line, in bytes; a longer one is refused unread.
        public var requestBytes = 256 * 1024
        /// The longest reply line, in bytes; a longer answer is replaced by an error.
        public var replyBytes = 32 * 1024 * 1024
        /// How long the server waits for a whole request, and for a reply to be taken.
        public var ioTimeout: Duration = .seconds(5)
        /// How long a client waits for its answer (a search behind a hung model server goes cold after this).
        public var answerTimeout: Duration = .seconds(30)
        /// Connections read or written at once; beyond, a new one is answered "busy" and closed.
        public var connections = 64

        /// The defaults.
        public init() {}
    }

    /// What the client sends.
    public struct Envelope: Codable, Sendable, Equatable {
        /// `WarmSearch.protocolVersion` of the client.
        public var `protocol`: Int
        /// The client's embedding settings (`Settings.servingEmbedding` in the CLI): a server whose index uses other
        /// ones refuses, so the client never gets vectors of another model server.
        public var embedding: Embedding
        public var request: SearchRequest
        /// How the client prints the hits: the server then answers with that text instead of the hits.
        public var printing: Printing?
    }

    /// How `trove search` prints its hits, for a server that prints them for it. A one-shot client spent ~1.2 ms
    /// decoding 10 hits (Codable's first use in a process: its generic metadata) and formatting them; the server has
    /// done both before and takes ~0.1 ms (BENCHMARKS.md).
    public struct Printing: Codable, Sendable, Equatable {
        /// One line per hit and its best lines (`text`), paths only (`files`), one JSON object, or one per line.
        public enum Format: String, Codable, Sendable { case text, files, json, jsonl }
        public var format: Format
        /// ANSI colour (the client's stdout is a terminal and `NO_COLOR` is not set).
        public var color: Bool
        /// Control characters shown escaped (the client's stdout is a terminal).
        public var escapeControls: Bool
        /// `--explain`: the ranking's line and each hit's scores and ranks.
        public var explain: Bool
        /// `-0`: paths end with NUL.
        public var nullTerminated: Bool
        /// The client's working directory: paths under it are shown relative to it.
        public var currentDirectory: String

        public init(
            format: Format, color: Bool, escapeControls: Bool, explain: Bool, nullTerminated: Bool,
            currentDirectory: String
        ) {
            self.format = format
            self.color = color
            self.escapeControls = escapeControls
            self.explain = explain
            self.nullTerminated = nullTerminated
            self.currentDirectory = currentDirectory
        }
    }

    /// The server's answer.
    public struct Response: Codable, Sendable, Equatable {
        /// The server's protocol version.
        public var `protocol`: Int?
        public var hits: [SearchHit]?
        /// The client's stdout for its hits, when it sent `Printing`.
        public var output: String?
        /// How many hits `output` shows.
        public var count: Int?
        /// The index's embedding model.
        public var model: String?
        public var error: String?
        /// Why it was refused, for the client to act on: see `Refusal`.
        public var code: String?

        public init(
            hits: [SearchHit]? = nil, output: String? = nil, count: Int? = nil, model: String? = nil,
            error: String? = nil, code: String? = nil
        ) {
            self.protocol = WarmSearch.protocolVersion
            self.hits = hits
            self.output = output
            self.count = count
            self.model = model
            self.error = error
            self.code = code
        }
    }

    /// The `code`s of a refusal.
    public enum Refusal: String, Sendable {
        /// The request line did not parse, or was not valid (a number out of range, too long).
        case badRequest = "bad-request"
        /// Another protocol version.
        case protocolMismatch = "protocol"
        /// The client's embedding settings are not the server's.
        case embedding
        /// The answer was larger than `Limits.replyBytes`.
        case tooLarge = "too-large"
        /// Too many connections at once.
        case busy
    }

    // MARK: Client

    /// Reported at most once per process: a version mismatch or a refused socket is news once, not per search.
    private static let warned = Mutex(Set<String>())

    /// Asks a running `trove serve`; nil when none answers usefully (no file, refused, a broken or refused answer),
    /// so the caller searches on its own instead. Why a server that exists was not used goes to `warn`, once per
    /// process: a socket owned by someone else, another protocol version, other embedding settings. A server-side
    /// search error is returned as `error` for the caller to judge. With `printing` the answer is the client's output
    /// (`output`, `count`) instead of its hits.
    public static func ask(
        _ request: SearchRequest, printing: Printing? = nil, indexPath: String, embedding: Embedding,
        limits: Limits = Limits(), warn: (String) -> Void = { _ in }
    ) -> Response? {
        let path = socketPath(forIndex: indexPath)
        func once(_ message: String) -> Response? {
            if warned.withLock({ $0.insert(message).inserted }) { warn(message) }
            return nil
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            return once("ignoring \(path): it is not a socket — remove it")
        }
        // Anyone who can create this file could read the queries and invent the answers.
        guard info.st_uid == getuid() else {
            return once(
                "not using \(path): it belongs to uid \(info.st_uid), not to you (uid \(getuid())) — "
                    + "searching without it; remove it if you did not expect another user's server")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard connect(descriptor, path: path) else { return nil }
        if let owner = peerUID(descriptor), owner != getuid() {
            return once(
                "not using \(path): the server behind it runs as uid \(owner), not as you (uid \(getuid())) — "
                    + "searching without it")
        }
        setTimeouts(descriptor, receive: limits.answerTimeout, send: limits.ioTimeout)
        let envelope = Envelope(protocol: protocolVersion, embedding: embedding, request: request, printing: printing)
        // By hand, not Codable: a one-shot process would pay Codable's first use (WarmSearch+Wire.swift).
        guard let body = envelope.json(), send(descriptor, Data((body + "\n").utf8)) else { return nil }
        shutdown(descriptor, Int32(SHUT_WR))
        guard case .line(let answer) = receiveLine(descriptor, limit: limits.replyBytes, within: limits.answerTimeout),
            let response = Response(printedAnswer: answer) ?? (try? JSONDecoder().decode(Response.self, from: answer))
        else { return nil }
        guard response.protocol == protocolVersion else {
            let theirs = response.protocol.map { "protocol \($0)" } ?? "an older protocol"
            return once(
                "the trove serve for \(indexPath) speaks \(theirs), this trove speaks protocol \(protocolVersion) — "
                    + "searching without it; restart trove serve")
        }
        if response.code == Refusal.embedding.rawValue || response.code == Refusal.protocolMismatch.rawValue {
            return once((response.error ?? "the running trove serve refused this search") + " — searching without it")
        }
        return response
    }

    // MARK: Server

    /// One request read and checked, waiting for its answer.
    private struct Job: Sendable {
        var connection: Int32
        var request: SearchRequest
        var printing: Printing?
    }

    /// Listens on the index's socket until `stop` is raised (SIGINT/SIGTERM in `trove serve`), then removes the
    /// socket and returns. Requests from several clients are read at once; `answer` runs for one at a time, in
    /// arrival order. A stale socket file (no server behind it) is replaced; a live one is an error.
    /// `embedding` is the settings the server's index uses (`Embedding.used(by:)`): a client whose own differ there is
    /// refused, never answered. `answer` gets the client's `Printing` when it sent one.
    public static func serve(
        indexPath: String, embedding: Embedding, limits: Limits = Limits(), stop: StopSignal? = nil,
        ready: () -> Void, answer: (SearchRequest, Printing?) async -> Response
    ) async throws {
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
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFSOCK else {
                throw ServeError("\(path) exists and is not a socket — remove it, then start trove serve again")
            }
            unlink(path)
        }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw ServeError("cannot create a socket: \(String(cString: strerror(errno)))") }
        // Only the owner may connect: searches return the index's private text.
        let previous = umask(0o077)
        let bound = withAddress(path) { bind(listener, $0, $1) } == 0
        umask(previous)
        guard bound, listen(listener, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw ServeError("cannot listen on \(path): \(reason)")
        }
        defer { unlink(path) }
        ready()

        let (jobs, queue) = AsyncStream<Job>.makeStream()
        let gate = ConnectionGate(limit: limits.connections)
        let stopper = stop ?? StopSignal()
        let acceptor = Thread {
            acceptLoop(listener, embedding: embedding, limits: limits, gate: gate, stop: stopper, queue: queue)
        }
        acceptor.start()
        for await job in jobs {
            var response = await answer(job.request, job.printing)
            var body = (try? JSONEncoder().encode(response)) ?? Data()
            if body.count + 1 > limits.replyBytes {
                response = Response(
                    error: "the answer is over \(limits.replyBytes / 1_048_576) MiB — ask for fewer results",
                    code: Refusal.tooLarge.rawValue)
                body = (try? JSONEncoder().encode(response)) ?? Data()
            }
            let reply = body + Data([0x0A])
            let connection = job.connection
            // Most replies fit the socket's buffer: sent at once, without a thread (~0.2 ms to start one).
            let sent = sendWithoutWaiting(connection, reply)
            guard sent < reply.count else {
                close(connection)
                gate.leave()
                continue
            }
            Thread.detachNewThread {
                _ = send(connection, reply.dropFirst(sent))
                close(connection)
                gate.leave()
            }
        }
    }

    /// Accepts until `stop`, handing each connection to a reader thread; finishes `queue` and closes `listener`.
    private static func acceptLoop(
        _ listener: Int32, embedding: Embedding, limits: Limits, gate: ConnectionGate, stop: StopSignal,
        queue: AsyncStream<Job>.Continuation
    ) {
        defer {
            close(listener)
            queue.finish()
        }
        while !stop.isStopped {
            // A short poll, so a raised stop is seen within a quarter second without a signal reaching this thread.
            var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 250)
            if ready < 0, errno != EINTR { return }
            guard ready > 0 else { continue }
            let connection = accept(listener, nil, nil)
            if connection < 0 { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            setTimeouts(connection, receive: limits.ioTimeout, send: limits.ioTimeout)
            guard gate.enter() else {
                Thread.detachNewThread {
                    _ = send(connection, reply(Response(error: "trove serve is busy", code: Refusal.busy.rawValue)))
                    close(connection)
                }
                continue
            }
            Thread.detachNewThread {
                // The 0600 mode already keeps other users out; the peer's uid is checked too, as the client does.
                if let peer = peerUID(connection), peer != getuid() {
                    close(connection)
                    gate.leave()
                    return
                }
                switch read(connection, embedding: embedding, limits: limits) {
                case .success(let envelope):
                    queue.yield(Job(connection: connection, request: envelope.request, printing: envelope.printing))
                case .failure(let refusal):
                    _ = send(connection, reply(refusal))
                    close(connection)
                    gate.leave()
                }
            }
        }
    }

    /// The connection's request, decoded and validated, or the refusal to send back.
    private static func read(_ connection: Int32, embedding: Embedding, limits: Limits) -> Result<Envelope, Refused> {
        func refuse(_ code: Refusal, _ message: String) -> Result<Envelope, Refused> {
            .failure(Refused(response: Response(error: message, code: code.rawValue)))
        }
        let line: Data
        switch receiveLine(connection, limit: limits.requestBytes, within: limits.ioTimeout) {
        case .line(let data): line = data
        case .tooLong: return refuse(.badRequest, "request is over \(limits.requestBytes) bytes")
        case .failed: return refuse(.badRequest, "no request within \(limits.ioTimeout)")
        }
        return decode(line, embedding: embedding)
    }

    /// A request line checked as the server checks it: JSON, the protocol version, the embedding settings, then
    /// every field's range. Public so the fuzz target and the tests exercise exactly the server's checks.
    public static func decode(_ line: Data, embedding: Embedding) -> Result<Envelope, Refused> {
        func refuse(_ code: Refusal, _ message: String) -> Result<Envelope, Refused> {
            .failure(Refused(response: Response(error: message, code: code.rawValue)))
        }
        struct Version: Decodable { var `protocol`: Int? }
        guard let version = try? JSONDecoder().decode(Version.self, from: line) else {
            return refuse(.badRequest, "bad request: not a JSON object")
        }
        guard version.protocol == protocolVersion else {
            return refuse(
                .protocolMismatch,
                "this trove serve speaks protocol \(protocolVersion), the client \(version.protocol.map(String.init) ?? "an older one")")
        }
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: line)
        } catch {
            return refuse(.badRequest, "bad request: \(Self.describe(error))")
        }
        let asked = embedding.seen(from: envelope.embedding)
        guard asked == embedding else {
            return refuse(.embedding, "the running trove serve embeds with \(embedding), this search asked for \(asked)")
        }
        do {
            try envelope.request.validate()
        } catch {
            return refuse(.badRequest, "bad request: \(String(describing: error))")
        }
        return .success(envelope)
    }

    /// A refusal to send back instead of an answer.
    public struct Refused: Error, Sendable {
        public var response: Response
    }

    /// A decoding error in one line, without Foundation's long debug text.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return field.isEmpty ? "not a valid request" : "bad value for '\(field)'"
        default: return "not a valid request"
        }
    }

    private static func reply(_ refused: Refused) -> Data { reply(refused.response) }

    private static func reply(_ response: Response) -> Data {
        ((try? JSONEncoder().encode(response)) ?? Data()) + Data([0x0A])
    }

    // MARK: Sockets

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

    /// The uid of the process at the other end of a Unix socket (`SO_PEERCRED`), nil when the kernel won't say.
    private static func peerUID(_ descriptor: Int32) -> uid_t? {
        // `struct ucred` (pid, uid, gid: three 32-bit fields) is hidden behind _GNU_SOURCE in Glibc's module.
        var credentials = [UInt32](repeating: 0, count: 3)
        var length = socklen_t(12)
        let got = credentials.withUnsafeMutableBytes {
            getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length)
        }
        guard got == 0, length == 12 else { return nil }
        return credentials[1]
    }

    private static func setTimeouts(_ descriptor: Int32, receive: Duration, send: Duration) {
        for (option, duration) in [(SO_RCVTIMEO, receive), (SO_SNDTIMEO, send)] {
            let parts = duration.components
            var value = timeval(tv_sec: Int(parts.seconds), tv_usec: Int(parts.attoseconds / 1_000_000_000_000))
            setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// The bytes of `data` the socket takes now, without blocking (0 when it takes none or fails).
    private static func sendWithoutWaiting(_ descriptor: Int32, _ data: Data) -> Int {
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let put = Glibc.send(
                    descriptor, raw.baseAddress! + done, raw.count - done, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                if put < 0, errno == EINTR { continue }
                guard put > 0 else { break }
                done += put
            }
            return done
        }
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

    private enum Received {
        case line(Data)
        case tooLong
        case failed
    }

    /// Everything up to the first newline or the end of the stream, at most `limit` bytes, within `within` in all
    /// (each `recv` is also bounded by the socket's receive timeout), so a client trickling bytes is cut off too.
    private static func receiveLine(_ descriptor: Int32, limit: Int, within: Duration) -> Received {
        let deadline = ContinuousClock.now + within
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = recv(descriptor, &buffer, buffer.count, 0)
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return .failed }
            if got == 0 { break }
            if let newline = buffer[..<got].firstIndex(of: 0x0A) {
                data.append(buffer, count: newline)
                break
            }
            data.append(buffer, count: got)
            if data.count > limit { return .tooLong }
            if ContinuousClock.now > deadline { return .failed }
        }
        if data.count > limit { return .tooLong }
        return data.isEmpty ? .failed : .line(data)
    }
}

/// Counts connections being read or written, up to a limit.
private final class ConnectionGate: Sendable {
    private let count = Mutex(0)
    private let limit: Int
    init(limit: Int) { self.limit = limit }
    /// Takes a place; false when all are taken.
    func enter() -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }
    func leave() { count.withLock { $0 -= 1 } }
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
