import Foundation
@preconcurrency import Glibc

extension FakeOllamaServer {
    /// How the fake answers chat and generate, and misbehaves while streaming.
    public struct Streaming: Sendable, Equatable {
        /// The answer; streamed one word (with its leading space) per line.
        public var reply = "Paris is the capital of France [1]."
        /// The reasoning streamed first when a request asks to `think`.
        public var thinking = "The notes mention Paris."
        /// Pause before each streamed line, in milliseconds.
        public var delayMilliseconds = 0
        /// When set, the whole stream is written in pieces of this many bytes, cutting lines (and characters)
        /// anywhere.
        public var writeSize: Int?
        /// After this many lines, an `{"error": errorMessage}` line ends the stream (status stays 200).
        public var errorAfterLines: Int?
        /// The text of that error line.
        public var errorMessage = "llama runner process has terminated: exit status 2"
        /// After this many lines the connection closes without finishing the reply.
        public var dropAfterLines: Int?
        /// After this many lines the server goes silent (until the client gives up).
        public var stallAfterLines: Int?
        /// Reported as `prompt_eval_count` instead of the prompt's word count.
        public var promptEvalCount: Int?
        /// Bytes of the one layer a pull or push reports.
        public var layerSize: Int64 = 4_000_000
        /// Progress lines per layer.
        public var progressSteps = 4

        /// The default behaviour: answers like a healthy Ollama.
        public init() {}
    }

    /// How chat, generate, pull, push and create stream; safe to change between requests.
    public var streaming: Streaming {
        get { core.extras.locked { $0.streaming } }
        set { core.extras.locked { $0.streaming = newValue } }
    }

    /// How many streamed replies the client abandoned (the connection closed before the reply was complete).
    public var abandonedStreamCount: Int { core.extras.locked { $0.abandoned } }

    /// Models deleted through `/api/delete`, in order.
    public var deletedModels: [String] { core.extras.locked { $0.deleted } }

    /// Headers of the latest request to `path`, lowercased names.
    public func lastRequestHeaders(path: String) -> [String: String]? { core.extras.locked { $0.headers[path] } }
}

/// The mutable state of the extended endpoints.
final class Extras: @unchecked Sendable {  // every field is read and written under `lock`
    struct State {
        var streaming = FakeOllamaServer.Streaming()
        var abandoned = 0
        var deleted: [String] = []
        var loaded: [String] = []
        var created: [String] = []
        var headers: [String: [String: String]] = [:]
    }
    private let lock = NSLock()
    private var state = State()

    func locked<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

extension FakeOllamaServer.Core {
    static let extendedPaths: Set<String> = [
        "/api/chat", "/api/generate", "/api/pull", "/api/push", "/api/ps", "/api/copy", "/api/delete",
        "/api/create", "/api/embeddings",
    ]

    /// Serves the endpoints beyond the core ones; nil when `request` is not for one of them, else whether the
    /// connection may carry another request.
    func serveExtended(_ request: Request, fd: Int32) -> Bool? {
        if request.method == "HEAD" && request.path == "/" {
            locked { requestCounts["/", default: 0] += 1 }
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 17\r\n"
                + "Date: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n"
            return sendAll(fd, Array(head.utf8))
        }
        guard Self.extendedPaths.contains(request.path) else { return nil }
        let fault: FakeOllamaServer.Fault = locked {
            requestCounts[request.path, default: 0] += 1
            lastBodies[request.path] = Data(request.body)
            return currentFault
        }
        extras.locked { $0.headers[request.path] = request.headers }
        switch fault {
        case .status(let code, let message): return sendAll(fd, Self.errorJSON(code, message))
        case .malformedJSON: return sendAll(fd, Self.json(200, "{\"message\": {\"content\": "))
        case .delay(let milliseconds): usleep(useconds_t(milliseconds * 1000))
        default: break
        }
        let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
        switch (request.method, request.path) {
        case ("POST", "/api/chat"): return generation(body, fd: fd, chat: true)
        case ("POST", "/api/generate"): return generation(body, fd: fd, chat: false)
        case ("POST", "/api/pull"): return pull(body, fd: fd)
        case ("POST", "/api/push"): return push(body, fd: fd)
        case ("POST", "/api/create"): return create(body, fd: fd)
        case ("DELETE", "/api/delete"): return delete(body, fd: fd)
        case ("POST", "/api/copy"): return copy(body, fd: fd)
        case ("GET", "/api/ps"): return ps(fd: fd)
        case ("POST", "/api/embeddings"): return legacyEmbedding(body, fd: fd)
        default:
            return sendAll(
                fd, Self.response(status: 405, contentType: "text/plain", body: Array("405 method not allowed".utf8)))
        }
    }

    /// A model by name (a missing tag means `latest`), unless deleted.
    func liveModel(_ name: String) -> FakeOllamaServer.Model? {
        func full(_ name: String) -> String { name.contains(":") ? name : name + ":latest" }
        if extras.locked({ $0.deleted.map(full).contains(full(name)) }) { return nil }
        return models.first { full($0.name) == full(name) }
    }

    func notFound(_ name: String, _ fd: Int32) -> Bool {
        sendAll(fd, Self.errorJSON(404, "model \"\(name)\" not found, try pulling it first"))
    }

    // MARK: - Chat and generate

    private func generation(_ body: [String: Any]?, fd: Int32, chat: Bool) -> Bool {
        guard let body else { return sendAll(fd, Self.errorJSON(400, "invalid request body")) }
        guard let name = body["model"] as? String, !name.isEmpty else {
            return sendAll(fd, Self.errorJSON(400, "model is required"))
        }
        guard let model = liveModel(name) else { return notFound(name, fd) }
        guard model.capabilities.contains("completion") else {
            return sendAll(fd, Self.errorJSON(400, "\"\(name)\" does not support \(chat ? "chat" : "generate")"))
        }
        let settings = extras.locked {
            if !$0.loaded.contains(model.name) { $0.loaded.append(model.name) }
            return $0.streaming
        }
        let options = body["options"] as? [String: Any] ?? [:]
        let messages = body["messages"] as? [[String: Any]] ?? []
        let promptText =
            chat
            ? messages.compactMap { $0["content"] as? String }.joined(separator: "\n")
            : [body["system"] as? String, body["prompt"] as? String].compactMap { $0 }.joined(separator: "\n")
        // Like a real tokenizer, at least one token per whitespace-separated piece (a `|` or `---` included).
        var promptTokens = promptText.split(whereSeparator: \.isWhitespace).count
        if let context = options["num_ctx"] as? Int, promptTokens > context { promptTokens = context }
        if let forced = settings.promptEvalCount { promptTokens = forced }

        var answer = settings.reply
        if body["format"] != nil { answer = "{\"answer\": \(Self.quote(answer))}" }
        var tokens = Self.tokens(answer)
        var doneReason = "stop"
        if let limit = options["num_predict"] as? Int, limit >= 0, tokens.count > limit {
            tokens = Array(tokens.prefix(limit))
            doneReason = "length"
        }
        let thinking = body["think"] as? Bool == true ? Self.tokens(settings.thinking) : []
        var toolCalls: [[String: Any]]?
        if chat, let tools = body["tools"] as? [[String: Any]],
            let function = tools.first?["function"] as? [String: Any], let tool = function["name"] as? String
        {
            let question = messages.last { $0["role"] as? String == "user" }?["content"] as? String ?? ""
            toolCalls = [["function": ["name": tool, "arguments": ["query": question]] as [String: Any]]]
            tokens = []
        }
        let stamp = "2026-01-01T00:00:00.123456789Z"
        func piece(content: String, thinking: String?, calls: [[String: Any]]?, done: Bool) -> [String: Any] {
            var object: [String: Any] = ["model": name, "created_at": stamp, "done": done]
            if chat {
                var message: [String: Any] = ["role": "assistant", "content": content]
                if let thinking { message["thinking"] = thinking }
                if let calls { message["tool_calls"] = calls }
                object["message"] = message
            } else {
                object["response"] = content
                if let thinking { object["thinking"] = thinking }
            }
            if done {
                object["done_reason"] = doneReason
                object["total_duration"] = 5_043_500_667 as Int64
                object["load_duration"] = 5_025_959 as Int64
                object["prompt_eval_count"] = promptTokens
                object["prompt_eval_duration"] = 325_953_000 as Int64
                object["eval_count"] = tokens.count
                object["eval_duration"] = 4_709_213_000 as Int64
                if !chat { object["context"] = [1, 2, 3] }
            }
            return object
        }
        if body["stream"] as? Bool == false {
            if settings.errorAfterLines == 0 {
                return sendAll(fd, Self.json(200, "{\"error\":\(Self.quote(settings.errorMessage))}"))
            }
            let whole = piece(
                content: tokens.joined(), thinking: thinking.isEmpty ? nil : thinking.joined(), calls: toolCalls,
                done: true)
            return sendAll(fd, Self.json(200, Self.encode(whole)))
        }
        var lines = thinking.map { piece(content: "", thinking: $0, calls: nil, done: false) }
        lines += tokens.map { piece(content: $0, thinking: nil, calls: nil, done: false) }
        if let toolCalls { lines.append(piece(content: "", thinking: nil, calls: toolCalls, done: false)) }
        lines.append(piece(content: "", thinking: nil, calls: nil, done: true))
        return stream(lines.map(Self.encode), settings: settings, fd: fd)
    }

    /// Words with their leading spaces, so that joining them gives the text back.
    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in text {
            if character == " " && !current.isEmpty && current != " " {
                tokens.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    static func encode(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes `lines` as a chunked NDJSON reply, applying the faults of `settings`.
    func stream(_ lines: [String], settings: FakeOllamaServer.Streaming, fd: Int32) -> Bool {
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n"
            + "Date: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n"
        guard sendAll(fd, Array(head.utf8)) else { return abandoned() }
        var count = lines.count
        var ending = "normal"
        for (limit, kind) in [
            (settings.errorAfterLines, "error"), (settings.dropAfterLines, "drop"), (settings.stallAfterLines, "stall"),
        ] {
            if let limit, limit <= count, kind == "error" || limit < count {
                count = limit
                ending = kind
            }
        }
        var sent = lines.prefix(count).map { $0 + "\n" }
        if ending == "error" { sent.append("{\"error\":\(Self.quote(settings.errorMessage))}\n") }
        func chunk(_ bytes: [UInt8]) -> Bool {
            sendAll(fd, Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + Array("\r\n".utf8))
        }
        if let size = settings.writeSize, size > 0 {
            let all = Array(sent.joined().utf8)
            var offset = 0
            while offset < all.count {
                let end = min(all.count, offset + size)
                guard chunk(Array(all[offset..<end])) else { return abandoned() }
                offset = end
                usleep(useconds_t(max(1, settings.delayMilliseconds) * 1000))
            }
        } else {
            for line in sent {
                if settings.delayMilliseconds > 0 { usleep(useconds_t(settings.delayMilliseconds * 1000)) }
                guard chunk(Array(line.utf8)) else { return abandoned() }
            }
        }
        switch ending {
        case "drop":
            return false
        case "stall":
            // Silent until the client hangs up (or 30 s pass).
            for _ in 0..<3000 {
                var byte: UInt8 = 0
                let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
                if peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { break }
                usleep(10_000)
            }
            return abandoned()
        default:
            guard sendAll(fd, Array("0\r\n\r\n".utf8)) else { return abandoned() }
            return true
        }
    }

    private func abandoned() -> Bool {
        extras.locked { $0.abandoned += 1 }
        return false
    }
}
