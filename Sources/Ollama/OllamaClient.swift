import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client for one Ollama server.
public struct OllamaClient: Sendable {
    /// Where the server listens, e.g. `http://127.0.0.1:11434`.
    public var baseURL: URL
    /// How long one request may stay idle before it fails with `.timeout`.
    ///
    /// A reply to these endpoints comes in one piece, so idle time is the time until the reply; the limit is
    /// exact (URLSession's own whole-second timer is only a backstop). Non-streaming chat and generate wait for
    /// the whole answer under this limit.
    public var requestTimeout: Duration {
        didSet { transport = HTTPTransport(idleTimeout: requestTimeout.timeInterval, template: transport.template) }
    }
    /// How long a streaming reply (chat, generate, pull, push, create) may go without a byte before it fails with
    /// `.timeout`; the clock restarts with every chunk, so a long answer is never cut while tokens keep coming.
    public var streamIdleTimeout: Duration
    /// Headers sent with every request, e.g. `Authorization: Bearer …` for an Ollama behind a proxy.
    ///
    /// They are never logged, and no error message includes them.
    public var headers: [String: String]
    /// The session shared by every copy of this client (until one of them changes `requestTimeout`).
    var transport: HTTPTransport

    /// A client for the server at `baseURL`; each client owns one URLSession with 16 connections per host.
    ///
    /// - Parameters:
    ///   - requestTimeout: the limit for replies that come in one piece.
    ///   - streamIdleTimeout: the longest silence a streaming reply may keep.
    ///   - headers: extra headers for every request.
    ///   - apiKey: sent as `Authorization: Bearer KEY` (e.g. from `OLLAMA_API_KEY`); overrides `headers`' own.
    ///   - configuration: a session configuration to start from (proxies, TLS, cookies); the client copies it
    ///     and sets only its timeouts and caching.
    public init(
        baseURL: URL, requestTimeout: Duration = .seconds(300), streamIdleTimeout: Duration = .seconds(300),
        headers: [String: String] = [:], apiKey: String? = nil, configuration: URLSessionConfiguration? = nil
    ) {
        self.baseURL = baseURL
        self.requestTimeout = requestTimeout
        self.streamIdleTimeout = streamIdleTimeout
        var headers = headers
        if let apiKey, !apiKey.isEmpty { headers["Authorization"] = "Bearer \(apiKey)" }
        self.headers = headers
        self.transport = HTTPTransport(
            idleTimeout: requestTimeout.timeInterval, template: configuration.map(ConfigurationTemplate.init))
    }

    /// `POST /api/embed`: one vector per input, in order; checks the count and that all lengths agree.
    public func embed(_ request: EmbedRequest) async throws -> EmbedResponse {
        let endpoint = "/api/embed"
        let body = try call(endpoint, method: "POST", json: try JSONEncoder().encode(request))
        let response: EmbedResponse = try await decode(endpoint, request: body, model: request.model)
        try Self.check(response, for: request, endpoint: endpoint)
        return response
    }

    /// `GET /api/tags`: the models pulled on the server.
    public func tags() async throws -> [ModelSummary] {
        struct Reply: Decodable { var models: [ModelSummary]? }
        let reply: Reply = try await decode(
            "/api/tags", request: call("/api/tags", method: "GET", json: nil), model: nil)
        return reply.models ?? []
    }

    /// `POST /api/show`: details, capabilities and `model_info` of one model.
    public func show(model: String) async throws -> ModelDetails {
        let endpoint = "/api/show"
        let payload = try JSONSerialization.data(withJSONObject: ["model": model])
        let body = try await send(call(endpoint, method: "POST", json: payload), endpoint: endpoint, model: model)
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) else {
            throw OllamaError.notJSON(endpoint: endpoint, body: body)
        }
        guard let reply = object as? [String: Any] else {
            throw OllamaError.wrongShape(endpoint: endpoint, detail: "expected an object", body: body)
        }
        return ModelDetails(showReply: reply)
    }

    /// `GET /api/version`, e.g. `0.5.7`.
    public func version() async throws -> String {
        struct Reply: Decodable { var version: String }
        let reply: Reply = try await decode(
            "/api/version", request: call("/api/version", method: "GET", json: nil), model: nil)
        return reply.version
    }

    // MARK: - Plumbing

    /// `baseURL` as users write it, without a trailing slash.
    var baseText: String {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The request for `endpoint` below `baseURL`.
    func call(_ endpoint: String, method: String, json: Data?) throws -> URLRequest {
        guard let url = URL(string: baseText + endpoint) else {
            throw OllamaError.unreachable(baseURL: baseText, endpoint: endpoint)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = json
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// Sends `request`; a non-2xx reply becomes the matching `OllamaError`.
    func send(_ request: URLRequest, endpoint: String, model: String?) async throws -> [UInt8] {
        let (status, body) = try await transport.send(
            request, endpoint: endpoint, baseURL: baseText, timeout: requestTimeout.timeInterval)
        guard (200..<300).contains(status) else {
            throw OllamaError.fromHTTP(status: status, body: body, endpoint: endpoint, model: model)
        }
        return body
    }

    /// Sends and decodes a JSON reply into `T`.
    func decode<T: Decodable>(_ endpoint: String, request: URLRequest, model: String?) async throws -> T {
        let body = try await send(request, endpoint: endpoint, model: model)
        // A 200 that carries only `{"error": …}` (a model that failed while answering) is a failure, not a reply.
        if let message = Self.streamedError(body) {
            throw OllamaError(
                kind: .serverError, message: "ollama failed on \(endpoint): \(message)", endpoint: endpoint,
                status: 200, serverMessage: message)
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            if (try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) == nil {
                throw OllamaError.notJSON(endpoint: endpoint, body: body)
            }
            throw OllamaError.wrongShape(endpoint: endpoint, detail: Self.describe(error), body: body)
        }
    }

    /// A short account of where decoding failed.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the top level" : "'" + keys.joined(separator: ".") + "'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            let within = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "key '\(key.stringValue)' is missing\(within)"
        case .typeMismatch(let type, let context): return "\(path(context)) is not \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) is null, expected \(type)"
        case .dataCorrupted(let context): return "\(path(context)) is corrupted"
        @unknown default: return "unreadable"
        }
    }

    /// Checks one vector per input, all of the same length, and the requested dimension.
    static func check(_ response: EmbedResponse, for request: EmbedRequest, endpoint: String) throws {
        let expected = request.input.count
        let got = response.embeddings.count
        func unexpected(_ message: String) -> OllamaError {
            OllamaError(kind: .unexpectedResponse, message: message, endpoint: endpoint, status: 200)
        }
        guard got == expected else {
            throw unexpected(
                "ollama returned \(got) embeddings for \(expected) inputs: expected \(expected), got \(got)")
        }
        guard let first = response.embeddings.first else { return }
        if first.isEmpty { throw unexpected("ollama returned an empty embedding for input 0") }
        if let index = response.embeddings.firstIndex(where: { $0.count != first.count }) {
            throw unexpected(
                "ollama returned embeddings of different lengths: expected \(first.count) floats (like input 0),"
                    + " got \(response.embeddings[index].count) for input \(index)")
        }
        if let dimensions = request.dimensions, dimensions != first.count {
            throw unexpected(
                "ollama returned embeddings of \(first.count) floats, but \(dimensions) were requested:"
                    + " expected \(dimensions), got \(first.count)")
        }
    }
}

extension OllamaClient {
    /// Body of `POST /api/embed`.
    public struct EmbedRequest: Codable, Sendable, Equatable {
        /// The model name, e.g. `nomic-embed-text`.
        public var model: String
        /// The texts, one vector each.
        public var input: [String]
        /// Whether Ollama may cut inputs longer than the context (its default is `true`).
        public var truncate: Bool?
        /// How long the model stays loaded afterwards, e.g. `5m`; sent as `keep_alive`.
        public var keepAlive: String?
        /// Asks models that support it for shorter vectors.
        public var dimensions: Int?
        /// Model parameters, e.g. `numCtx`.
        public var options: Options?

        /// A request; `nil` options are left out of the JSON so Ollama's defaults apply.
        public init(
            model: String, input: [String], truncate: Bool? = nil, keepAlive: String? = nil, dimensions: Int? = nil,
            options: Options? = nil
        ) {
            self.model = model
            self.input = input
            self.truncate = truncate
            self.keepAlive = keepAlive
            self.dimensions = dimensions
            self.options = options
        }

        private enum CodingKeys: String, CodingKey {
            case model, input, truncate, dimensions, options
            case keepAlive = "keep_alive"
        }
    }

    /// Reply of `POST /api/embed`.
    public struct EmbedResponse: Codable, Sendable, Equatable {
        /// The model that answered.
        public var model: String
        /// One vector per input, in input order.
        public var embeddings: [[Float]]
        /// Tokens Ollama read, when it says.
        public var promptEvalCount: Int?

        /// A reply, for tests and fakes.
        public init(model: String, embeddings: [[Float]], promptEvalCount: Int? = nil) {
            self.model = model
            self.embeddings = embeddings
            self.promptEvalCount = promptEvalCount
        }

        private enum CodingKeys: String, CodingKey {
            case model, embeddings
            case promptEvalCount = "prompt_eval_count"
        }

        /// Decodes Ollama's reply; a missing `model` is tolerated as empty.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            model = try container.decodeIfPresent(String.self, forKey: .model) ?? ""
            embeddings = try container.decode([[Float]].self, forKey: .embeddings)
            promptEvalCount = try container.decodeIfPresent(Int.self, forKey: .promptEvalCount)
        }
    }

    /// One entry of `GET /api/tags`.
    public struct ModelSummary: Codable, Sendable, Equatable {
        /// The name as listed, e.g. `nomic-embed-text:latest`.
        public var name: String
        /// The model reference, usually equal to `name`.
        public var model: String?
        /// The manifest digest, which changes when the model is re-pulled.
        public var digest: String?
        /// Size on disk in bytes.
        public var size: Int64?
        /// `details.family`, e.g. `nomic-bert`.
        public var family: String?

        /// A summary, for tests and fakes.
        public init(
            name: String, model: String? = nil, digest: String? = nil, size: Int64? = nil, family: String? = nil
        ) {
            self.name = name
            self.model = model
            self.digest = digest
            self.size = size
            self.family = family
        }

        private enum CodingKeys: String, CodingKey { case name, model, digest, size, details }
        private enum DetailKeys: String, CodingKey { case family }

        /// Decodes one entry of Ollama's `models` array, lifting `details.family`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            model = try container.decodeIfPresent(String.self, forKey: .model)
            digest = try container.decodeIfPresent(String.self, forKey: .digest)
            size = try container.decodeIfPresent(Int64.self, forKey: .size)
            if container.contains(.details), (try? container.decodeNil(forKey: .details)) == false {
                let details = try container.nestedContainer(keyedBy: DetailKeys.self, forKey: .details)
                family = try details.decodeIfPresent(String.self, forKey: .family)
            } else {
                family = nil
            }
        }

        /// Encodes in Ollama's shape, with `family` under `details`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(model, forKey: .model)
            try container.encodeIfPresent(digest, forKey: .digest)
            try container.encodeIfPresent(size, forKey: .size)
            if let family {
                var details = container.nestedContainer(keyedBy: DetailKeys.self, forKey: .details)
                try details.encode(family, forKey: .family)
            }
        }
    }

    /// Reply of `POST /api/show`, reduced to what callers need.
    public struct ModelDetails: Sendable, Equatable {
        /// E.g. `["embedding"]` or `["completion", "tools"]`; empty when the server is too old to say.
        public var capabilities: [String]
        /// `details.family`, e.g. `nomic-bert`.
        public var family: String?
        /// `<arch>.embedding_length` from `model_info`: the vector size.
        public var embeddingLength: Int?
        /// `<arch>.context_length` from `model_info`: the most tokens one input may hold.
        public var contextLength: Int?
        /// `general.architecture` from `model_info`, the prefix of its other keys.
        public var architecture: String?

        /// Details, for tests and fakes.
        public init(
            capabilities: [String], family: String? = nil, embeddingLength: Int? = nil, contextLength: Int? = nil,
            architecture: String? = nil
        ) {
            self.capabilities = capabilities
            self.family = family
            self.embeddingLength = embeddingLength
            self.contextLength = contextLength
            self.architecture = architecture
        }

        /// Whether the model can answer `/api/embed`.
        public var canEmbed: Bool { capabilities.contains("embedding") }

        /// Reads the parts we need from the JSON object of `/api/show`.
        init(showReply reply: [String: Any]) {
            capabilities = (reply["capabilities"] as? [Any])?.compactMap { $0 as? String } ?? []
            family = (reply["details"] as? [String: Any])?["family"] as? String
            let info = reply["model_info"] as? [String: Any] ?? [:]
            architecture = info["general.architecture"] as? String
            // The prefix is the architecture (`bert.`, `nomic-bert.`, `llama.`); prefer it, else any key that ends so.
            // A length must be positive: -1, 0, 1e20 or "x" from a broken server mean "unknown", never a trap.
            func lookup(_ suffix: String) -> Int? {
                func positive(_ value: Any?) -> Int? { value.flatMap(Self.integer).flatMap { $0 > 0 ? $0 : nil } }
                if let architecture, let value = positive(info["\(architecture).\(suffix)"]) {
                    return value
                }
                return info.keys.sorted().lazy.filter { $0.hasSuffix(".\(suffix)") }
                    .compactMap { positive(info[$0]) }.first
            }
            embeddingLength = lookup("embedding_length")
            contextLength = lookup("context_length")
        }

        /// An integer from any JSON scalar JSONSerialization may hand back.
        static func integer(_ value: Any) -> Int? {
            switch value {
            case let number as Int: return number
            case let number as Int64: return Int(exactly: number)
            case let number as UInt64: return Int(exactly: number)
            // `exactly:` throughout: 1e20 does not fit an Int and would trap in `Int(_:)`.
            case let number as Double: return Int(exactly: number)
            case let number as NSNumber: return Int(exactly: number.doubleValue)
            case let text as String: return Int(text.trimmingCharacters(in: .whitespaces))
            default: return nil
            }
        }
    }
}

extension OllamaClient: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `OllamaClient(http://127.0.0.1:11434)`: never the headers, which may hold a key.
    public var description: String { "OllamaClient(\(baseText))" }
    /// The same as `description`.
    public var debugDescription: String { description }
    /// What `dump` and debuggers show: the URL and timeouts, and only the names of the headers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "baseURL": baseURL, "requestTimeout": requestTimeout, "streamIdleTimeout": streamIdleTimeout,
                "headers": headers.keys.sorted(),
            ])
    }
}
