import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client of one OpenAI-compatible server (llama.cpp's llama-server, LM Studio, vLLM, LocalAI, OpenAI):
/// `/v1/models`, `/v1/embeddings` and streamed `/v1/chat/completions`. The key is sent as `Authorization: Bearer`
/// and appears in no message.
public struct OpenAIClient: Sendable {
    /// The base the endpoints hang off, e.g. `http://127.0.0.1:8080/v1`.
    public let baseURL: URL
    /// Seconds without a byte before a request fails.
    public let timeout: TimeInterval
    /// How many times a 429 is retried (after `Retry-After`, at most `maxRetryWait` seconds each).
    public var retries = 3
    public var maxRetryWait: TimeInterval = 30
    private let apiKey: String?
    private let session: SessionBox

    public init(baseURL: URL, apiKey: String?, timeout: TimeInterval = 300) {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.baseURL = URL(string: text) ?? baseURL
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.timeout = timeout
        session = SessionBox(timeout: timeout)
    }

    var authorization: String? { apiKey.map { "Bearer \($0)" } }

    /// The base URL as messages show it.
    public var displayURL: String { baseURL.absoluteString }

    /// The host and port, for the index fingerprint (never the key, never a path with secrets in a query).
    public var host: String {
        let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        return (components?.host ?? "") + (components?.port.map { ":\($0)" } ?? "")
    }

    // MARK: requests

    /// `GET /v1/models`: the model ids the server serves.
    public func models() async throws -> [String] {
        let body = try await send("GET", "/models", body: nil, model: nil)
        guard let list = try? JSONDecoder().decode(ModelList.self, from: Data(body)) else {
            throw OpenAIError.badReply(displayURL, "/models", "no {\"data\": [{\"id\": …}]} list")
        }
        return list.data.map(\.id)
    }

    /// `POST /v1/embeddings`: one vector per input, in input order, each as long as the others (and as
    /// `dimensions`, when asked).
    public func embeddings(_ request: EmbeddingsRequest) async throws -> [[Float]] {
        guard !request.input.isEmpty else { return [] }
        let body = try await send("POST", "/embeddings", body: try JSONEncoder().encode(request), model: request.model)
        let reply: EmbeddingsReply
        do { reply = try JSONDecoder().decode(EmbeddingsReply.self, from: Data(body)) } catch {
            throw OpenAIError.badReply(displayURL, "/embeddings", "no {\"data\": [{\"embedding\": …}]} list")
        }
        return try Self.check(reply, request: request, baseURL: displayURL)
    }

    /// Puts the vectors in input order and checks count, dimension and numbers.
    static func check(_ reply: EmbeddingsReply, request: EmbeddingsRequest, baseURL: String) throws -> [[Float]] {
        func bad(_ why: String) -> OpenAIError { .badReply(baseURL, "/embeddings", why) }
        guard reply.data.count == request.input.count else {
            throw bad("\(reply.data.count) vectors for \(request.input.count) inputs")
        }
        var vectors = [[Float]?](repeating: nil, count: request.input.count)
        for (position, item) in reply.data.enumerated() {
            let index = item.index ?? position
            guard vectors.indices.contains(index), vectors[index] == nil else {
                throw bad("vector index \(index) is out of range or repeated")
            }
            guard let floats = item.embedding.floats else { throw bad("a base64 vector is not float32s") }
            guard !floats.isEmpty, floats.allSatisfy(\.isFinite) else {
                throw bad("vector \(index) is empty or holds NaN or infinity")
            }
            vectors[index] = floats
        }
        let all = vectors.compactMap { $0 }
        let dimension = request.dimensions ?? all[0].count
        if let wrong = all.firstIndex(where: { $0.count != dimension }) {
            throw bad("vector \(wrong) has \(all[wrong].count) dimensions, not \(dimension)")
        }
        return all
    }

    /// `POST /v1/chat/completions` with `stream: true`: the answer as it is written. The stream ends after
    /// `[DONE]`; a body that ends before it throws, after everything that did arrive was delivered.
    public func chatStream(_ request: ChatRequest) -> AsyncThrowingStream<ChatStreamEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ChatStreamEvent, any Error>.makeStream()
        let task = Task {
            do {
                let urlRequest = try makeRequest("POST", "/chat/completions", body: JSONEncoder().encode(request))
                let delegate = ChatStreamDelegate(continuation: continuation, baseURL: displayURL)
                let session = URLSession(
                    configuration: session.configuration(), delegate: delegate, delegateQueue: nil)
                defer { session.finishTasksAndInvalidate() }
                let rejected = try await delegate.run(session.dataTask(with: urlRequest))
                if let (status, body) = rejected {
                    let served = status == 404 ? try? await models() : nil
                    throw OpenAIError.status(
                        status, body: body, endpoint: "/chat/completions", baseURL: displayURL, model: request.model,
                        served: served)
                }
                continuation.finish()
            } catch let error as OpenAIError {
                continuation.finish(throwing: error)
            } catch {
                continuation.finish(
                    throwing: OpenAIError.transport(error, baseURL: displayURL, endpoint: "/chat/completions", timeout: timeout))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    // MARK: transport

    private func makeRequest(_ method: String, _ endpoint: String, body: Data?) throws -> URLRequest {
        guard let url = URL(string: baseURL.absoluteString + endpoint) else {
            throw OpenAIError(kind: .unreachable, message: "\(displayURL) is not a URL — fix --base-url")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        return request
    }

    /// Sends one request, retrying 429s after `Retry-After`; the body of a 2xx reply.
    private func send(_ method: String, _ endpoint: String, body: Data?, model: String?) async throws -> [UInt8] {
        let request = try makeRequest(method, endpoint, body: body)
        var attempt = 0
        while true {
            if Task.isCancelled { throw OpenAIError(kind: .cancelled, message: "the request to \(endpoint) was cancelled") }
            let (data, response): (Data, URLResponse)
            do { (data, response) = try await session.session.data(for: request) } catch {
                throw OpenAIError.transport(error, baseURL: displayURL, endpoint: endpoint, timeout: timeout)
            }
            guard let http = response as? HTTPURLResponse else {
                throw OpenAIError.badReply(displayURL, endpoint, "no HTTP reply")
            }
            if (200..<300).contains(http.statusCode) { return [UInt8](data) }
            if http.statusCode == 429, attempt < retries {
                attempt += 1
                let wait = Self.retryAfter(http.value(forHTTPHeaderField: "Retry-After"), attempt: attempt)
                try? await Task.sleep(nanoseconds: UInt64(min(wait, maxRetryWait) * 1e9))
                continue
            }
            let served = http.statusCode == 404 && endpoint != "/models" ? try? await models() : nil
            throw OpenAIError.status(
                http.statusCode, body: [UInt8](data), endpoint: endpoint, baseURL: displayURL, model: model,
                served: served)
        }
    }

    /// Seconds to wait before retry `attempt`: the header's seconds, else 1, 2, 4 …
    static func retryAfter(_ header: String?, attempt: Int) -> TimeInterval {
        if let header, let seconds = Double(header.trimmingCharacters(in: .whitespaces)), seconds >= 0 {
            return seconds
        }
        return pow(2, Double(attempt - 1))
    }
}

/// The URLSession one client (and its copies) shares.
final class SessionBox: Sendable {
    let session: URLSession
    private let timeout: TimeInterval

    init(timeout: TimeInterval) {
        self.timeout = timeout
        session = URLSession(configuration: Self.make(timeout: timeout))
    }

    func configuration() -> URLSessionConfiguration { Self.make(timeout: timeout) }

    private static func make(timeout: TimeInterval) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = max(1, timeout)
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.urlCache = nil
        return configuration
    }

    deinit { session.finishTasksAndInvalidate() }
}

extension OpenAIClient {
    /// The context size llama.cpp's `/props` reports (`default_generation_settings.n_ctx`), nil elsewhere.
    public func contextSize() async -> Int? {
        struct Props: Decodable {
            struct Settings: Decodable { var n_ctx: Int? }
            var default_generation_settings: Settings?
            var n_ctx: Int?
        }
        var text = baseURL.absoluteString
        if text.hasSuffix("/v1") { text.removeLast(3) }
        guard let url = URL(string: text + "/props") else { return nil }
        var request = URLRequest(url: url, timeoutInterval: min(timeout, 10))
        if let key = authorization { request.setValue(key, forHTTPHeaderField: "Authorization") }
        guard let (data, response) = try? await URLSession.shared.data(for: request),
            (response as? HTTPURLResponse)?.statusCode == 200,
            let props = try? JSONDecoder().decode(Props.self, from: data)
        else { return nil }
        return props.default_generation_settings?.n_ctx ?? props.n_ctx
    }
}
