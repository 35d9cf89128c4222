import Dispatch
import Foundation
@preconcurrency import Glibc

/// An Ollama look-alike speaking real HTTP/1.1 on a loopback port, for tests and benchmarks.
///
/// One listener thread accepts; each connection gets its own thread and may carry many requests (keep-alive).
public final class FakeOllamaServer: Sendable {
    /// How the server misbehaves; `.normal` answers like Ollama.
    public enum Fault: Sendable, Equatable {
        /// Answers like Ollama.
        case normal
        /// Every request to /api/* answers with this status and `{"error": message}`.
        case status(Int, message: String)
        /// 200 with a body that is not JSON.
        case malformedJSON
        /// Embeddings of `dimension + 1` floats.
        case wrongDimension
        /// One embedding fewer than inputs.
        case wrongCount
        /// Sleeps before answering.
        case delay(milliseconds: Int)
    }

    /// A model the server knows.
    public struct Model: Sendable, Equatable {
        /// The name clients use; a name without a tag also answers to `name:latest`.
        public var name: String
        /// Length of its vectors (`<arch>.embedding_length`).
        public var dimension: Int
        /// `<arch>.context_length`, in tokens (the fake counts words).
        public var contextLength: Int
        /// `["embedding"]` or `["completion"]`.
        public var capabilities: [String]
        /// A sha256-looking hex string derived from the name.
        public var digest: String
        /// `details.family` and `general.architecture`, the prefix of the `model_info` keys.
        public var family: String
        /// Which vector space it embeds into: models of one space make the same vectors (as the same weights under
        /// two names would); another space mixes every word hash with this seed. 0: the space of `embedding(for:)`.
        public var space: UInt64 = 0

        /// A model with every field given.
        public init(
            name: String, dimension: Int, contextLength: Int, capabilities: [String], digest: String, family: String
        ) {
            self.name = name
            self.dimension = dimension
            self.contextLength = contextLength
            self.capabilities = capabilities
            self.digest = digest
            self.family = family
        }

        /// An embedding model such as `nomic-embed-text`.
        public static func embedding(_ name: String, dimension: Int = 64, contextLength: Int = 2048) -> Model {
            Model(
                name: name, dimension: dimension, contextLength: contextLength, capabilities: ["embedding"],
                digest: FakeOllamaServer.digest(of: name), family: "nomic-bert")
        }

        /// A chat model that cannot embed, such as `llama3.2`.
        public static func chat(_ name: String, dimension: Int = 3072, contextLength: Int = 131_072) -> Model {
            Model(
                name: name, dimension: dimension, contextLength: contextLength, capabilities: ["completion"],
                digest: FakeOllamaServer.digest(of: name), family: "llama")
        }
    }

    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// The failing call, e.g. `bind`.
        public var call: String
        /// `errno` after it.
        public var code: Int32
        /// E.g. `fake ollama server: bind failed: Address already in use`.
        public var description: String { "fake ollama server: \(call) failed: \(String(cString: strerror(code)))" }
    }

    /// The models it serves.
    public let models: [Model]
    /// The port it listens on.
    public let port: UInt16
    /// Sockets, threads and counters; the threads hold it, not `self`, so `deinit` can stop them.
    let core: Core

    /// Starts listening on 127.0.0.1 at `port` (0: a free port the kernel picks).
    public init(models: [Model] = [.embedding("nomic-embed-text")], port: UInt16 = 0) throws {
        self.models = models
        core = try Core(models: models, port: port)
        self.port = core.port
    }

    deinit { core.stop() }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The current misbehaviour; safe to change while requests run.
    public var fault: Fault {
        get { core.locked { core.currentFault } }
        set { core.locked { core.currentFault = newValue } }
    }

    /// Makes the next `count` requests to /api/embed answer `status` with `{"error": message}` (then normal again):
    /// a server that is briefly busy (503) or failing (500).
    public func failNextEmbeds(_ count: Int, status: Int, message: String = "server busy") {
        core.locked { core.embedFailures = (count, status, message) }
    }

    /// When set, an /api/embed request with any input containing this text fails with HTTP 500, as Ollama fails a
    /// whole batch for one input its runner cannot handle.
    public var poisonedText: String? {
        get { core.locked { core.poisonedText } }
        set { core.locked { core.poisonedText = newValue } }
    }

    /// When set, /api/tags reports this digest for every model: the weights changed under the same name.
    public var digestOverride: String? {
        get { core.locked { core.digestOverride } }
        set { core.locked { core.digestOverride = newValue } }
    }

    /// Number of texts embedded so far.
    public var embeddedInputCount: Int { core.locked { core.embeddedTotal } }

    /// The number of inputs of each `/api/embed` request answered so far, in arrival order.
    public var embedBatchSizes: [Int] { core.locked { core.batchSizes } }

    /// How many requests reached `path` (e.g. `/api/embed`), whatever their outcome.
    public func requestCount(path: String) -> Int { core.locked { core.requestCounts[path, default: 0] } }

    /// How many TCP connections the server accepted (few, when clients keep them alive).
    public var connectionCount: Int { core.locked { core.acceptedConnections } }

    /// How many requests reached the server at all.
    public var totalRequestCount: Int { core.locked { core.requestCounts.values.reduce(0, +) } }

    /// The body of the latest request to `path`, to check what a client sent.
    public func lastRequestBody(path: String) -> Data? { core.locked { core.lastBodies[path] } }

    /// Closes the port and every connection; waits (up to 2 s) for the threads to end. Idempotent.
    public func stop() { core.stop() }

    /// The deterministic vector the server returns for `text`: a normalized hashed bag of lowercased words.
    ///
    /// Each alphanumeric word adds ±1 to one bucket, both chosen by its FNV-1a hash, so texts that share words
    /// have a high cosine. A text without words gets a fixed unit vector.
    /// Task prefixes such as nomic's `search_query: ` are instructions to a real model, not content: like one, the
    /// fake does not let them make every query resemble every document.
    public static func embedding(for text: String, dimension: Int) -> [Float] {
        embedding(hashes: wordHashes(of: String(withoutTaskPrefix(text))), dimension: dimension)
    }

    static func withoutTaskPrefix(_ text: String) -> Substring {
        for prefix in ["search_query: ", "search_document: ", "query: ", "passage: "] where text.hasPrefix(prefix) {
            return text.dropFirst(prefix.count)
        }
        return text[...]
    }

    /// The vector for words already hashed by `wordHashes(of:)`.
    static func embedding(hashes: [UInt64], dimension: Int) -> [Float] {
        precondition(dimension > 0, "dimension must be positive")
        var vector = [Float](repeating: 0, count: dimension)
        for hash in hashes {
            vector[Int(hash % UInt64(dimension))] += (hash >> 63) == 0 ? 1 : -1
        }
        let norm = vector.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
        guard norm > 0 else {
            var unit = [Float](repeating: 0, count: dimension)
            unit[0] = 1
            return unit
        }
        return vector.map { $0 / norm }
    }

    /// The FNV-1a hash of each lowercased alphanumeric word of `text`, in order.
    static func wordHashes(of text: String) -> [UInt64] {
        let basis: UInt64 = 0xcbf2_9ce4_8422_2325
        var hashes: [UInt64] = []
        var hash = basis
        var inWord = false
        func add(_ byte: UInt8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            inWord = true
        }
        func endWord() {
            if inWord { hashes.append(hash) }
            hash = basis
            inWord = false
        }
        // An ASCII fast path keeps debug-build tests quick on megabyte batches.
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                let byte = UInt8(value)
                switch byte {
                case 0x30...0x39, 0x61...0x7a: add(byte)
                case 0x41...0x5a: add(byte + 0x20)
                default: endWord()
                }
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                for byte in scalar.properties.lowercaseMapping.utf8 { add(byte) }
            } else {
                endWord()
            }
        }
        endWord()
        return hashes
    }

    /// 64-bit FNV-1a of the UTF-8 bytes of `text`, from `seed` (the standard offset basis by default).
    static func fnv1a(_ text: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// 64 hex digits derived from `name`, stable across runs.
    static func digest(of name: String) -> String {
        (0..<4).map { part in
            let hash = fnv1a(name, seed: 0xcbf2_9ce4_8422_2325 &+ UInt64(part) &* 0x9e37_79b9_7f4a_7c15)
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
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
        private var stopped = false
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

        // MARK: - Endpoints

        private func handle(_ request: Request) -> [UInt8] {
            let fault: Fault = locked {
                requestCounts[request.path, default: 0] += 1
                lastBodies[request.path] = Data(request.body)
                return currentFault
            }
            if request.path == "/" {
                return Self.response(
                    status: 200, contentType: "text/plain; charset=utf-8", body: Array("Ollama is running".utf8))
            }
            if request.path.hasPrefix("/api/") {
                switch fault {
                case .status(let code, let message): return Self.errorJSON(code, message)
                case .malformedJSON: return Self.json(200, "{\"embeddings\": [[0.1, 0.2,")
                case .delay(let milliseconds): pause(milliseconds: milliseconds)
                default: break
                }
            }
            switch (request.method, request.path) {
            case ("POST", "/api/embed"):
                let failure: (Int, String)? = locked {
                    guard let failing = embedFailures, failing.remaining > 0 else { return nil }
                    embedFailures = failing.remaining > 1 ? (failing.remaining - 1, failing.status, failing.message) : nil
                    return (failing.status, failing.message)
                }
                if let (status, message) = failure { return Self.errorJSON(status, message) }
                return embed(request.body, fault: fault)
            case ("GET", "/api/tags"): return tags()
            case ("POST", "/api/show"): return show(request.body)
            case ("GET", "/api/version"): return Self.json(200, "{\"version\":\"0.9.0\"}")
            case (_, "/api/embed"), (_, "/api/tags"), (_, "/api/show"), (_, "/api/version"):
                return Self.response(status: 405, contentType: "text/plain", body: Array("405 method not allowed".utf8))
            default:
                return Self.response(status: 404, contentType: "text/plain", body: Array("404 page not found".utf8))
            }
        }

        /// Sleeps in short steps so that `stop()` is not held up.
        private func pause(milliseconds: Int) {
            let deadline = Date().addingTimeInterval(Double(milliseconds) / 1000)
            while Date() < deadline, !locked({ stopped }) {
                usleep(useconds_t(min(10_000, max(1, deadline.timeIntervalSinceNow * 1_000_000))))
            }
        }

        /// The model `name` refers to, accepting a missing `:latest`.
        private func model(named name: String) -> Model? {
            func full(_ name: String) -> String { name.contains(":") ? name : name + ":latest" }
            return models.first { full($0.name) == full(name) }
        }

        private func object(_ body: [UInt8]) -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }

        private func embed(_ body: [UInt8], fault: Fault) -> [UInt8] {
            guard let request = object(body) else { return Self.errorJSON(400, "invalid request body") }
            guard let name = request["model"] as? String, !name.isEmpty else {
                return Self.errorJSON(400, "model is required")
            }
            guard let model = model(named: name) else {
                return Self.errorJSON(404, "model \"\(name)\" not found, try pulling it first")
            }
            guard model.capabilities.contains("embedding") else {
                return Self.errorJSON(400, "\"\(name)\" does not support embeddings")
            }
            let inputs: [String]
            switch request["input"] {
            case nil: inputs = []
            case let text as String: inputs = [text]
            case let list as [Any]:
                let texts = list.compactMap { $0 as? String }
                guard texts.count == list.count else { return Self.errorJSON(400, "invalid input type") }
                inputs = texts
            default: return Self.errorJSON(400, "invalid input type")
            }
            let truncate = request["truncate"] as? Bool ?? true
            var tokens = 0
            var hashed: [[UInt64]] = []
            for text in inputs {
                // One word stands for one token.
                var hashes = FakeOllamaServer.wordHashes(of: text).map { $0 ^ (model.space &* 0x9E37_79B9_7F4A_7C15) }
                if hashes.count > model.contextLength {
                    if !truncate { return Self.errorJSON(400, "the input length exceeds the context length") }
                    hashes.removeLast(hashes.count - model.contextLength)
                }
                tokens += hashes.count
                hashed.append(hashes)
            }
            if let poison = locked({ poisonedText }), inputs.contains(where: { $0.contains(poison) }) {
                return Self.errorJSON(500, "llama runner failed to process the input")
            }
            var dimension = model.dimension
            if let asked = request["dimensions"] as? Int, asked > 0 { dimension = min(asked, model.dimension) }
            if fault == .wrongDimension { dimension += 1 }
            var vectors = hashed.map { FakeOllamaServer.embedding(hashes: $0, dimension: dimension) }
            if fault == .wrongCount, !vectors.isEmpty { vectors.removeLast() }
            locked {
                embeddedTotal += inputs.count
                batchSizes.append(inputs.count)
            }
            var text = "{\"model\":\(Self.quote(name)),\"embeddings\":["
            text.reserveCapacity(vectors.count * dimension * 12 + 100)
            for (index, vector) in vectors.enumerated() {
                if index > 0 { text += "," }
                text += "["
                for (position, value) in vector.enumerated() {
                    if position > 0 { text += "," }
                    text += value.description
                }
                text += "]"
            }
            text += "],\"total_duration\":1000000,\"load_duration\":1000,\"prompt_eval_count\":\(tokens)}"
            return Self.json(200, text)
        }

        private func tags() -> [UInt8] {
            let override = locked { digestOverride }
            let entries = models.map { model -> [String: Any] in
                let name = model.name.contains(":") ? model.name : model.name + ":latest"
                return [
                    "name": name, "model": name, "modified_at": "2026-01-01T00:00:00Z",
                    "size": 1_000_000 + model.dimension * 1000, "digest": override ?? model.digest,
                    "details": [
                        "format": "gguf", "family": model.family, "families": [model.family],
                        "parameter_size": "137M", "quantization_level": "F16",
                    ] as [String: Any],
                ]
            }
            let data =
                (try? JSONSerialization.data(withJSONObject: ["models": entries], options: [.sortedKeys])) ?? Data()
            return Self.response(status: 200, contentType: "application/json; charset=utf-8", body: [UInt8](data))
        }

        private func show(_ body: [UInt8]) -> [UInt8] {
            guard let request = object(body) else { return Self.errorJSON(400, "invalid request body") }
            // Older clients send `name`; Ollama accepts both.
            guard let name = (request["model"] ?? request["name"]) as? String, !name.isEmpty else {
                return Self.errorJSON(400, "model is required")
            }
            guard let model = model(named: name) else {
                return Self.errorJSON(404, "model '\(name)' not found")
            }
            let reply: [String: Any] = [
                "license": "Apache 2.0", "modelfile": "FROM \(model.name)", "parameters": "",
                "template": "{{ .Prompt }}",
                "details": [
                    "parent_model": "", "format": "gguf", "family": model.family, "families": [model.family],
                    "parameter_size": "137M", "quantization_level": "F16",
                ] as [String: Any],
                "model_info": [
                    "general.architecture": model.family, "general.parameter_count": 136_727_040,
                    "general.file_type": 1, "general.quantization_version": 2,
                    "\(model.family).attention.head_count": 12, "\(model.family).attention.layer_norm_epsilon": 1e-12,
                    "\(model.family).embedding_length": model.dimension,
                    "\(model.family).context_length": model.contextLength,
                    "\(model.family).pooling_type": 1, "tokenizer.ggml.model": "bert",
                    "tokenizer.ggml.tokens": NSNull(),
                ] as [String: Any],
                "capabilities": model.capabilities,
                "modified_at": "2026-01-01T00:00:00Z",
            ]
            let data = (try? JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys])) ?? Data()
            return Self.response(status: 200, contentType: "application/json; charset=utf-8", body: [UInt8](data))
        }

    }
}
