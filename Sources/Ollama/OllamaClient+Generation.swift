import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OllamaClient {
    /// `POST /api/chat` with `stream: false`: the whole reply in one value, waiting up to `requestTimeout`.
    public func chat(_ request: ChatRequest) async throws -> ChatResponse {
        let endpoint = "/api/chat"
        let body = try JSONEncoder().encode(Streaming(body: request, stream: false))
        return try await decode(endpoint, request: call(endpoint, method: "POST", json: body), model: request.model)
    }

    /// `POST /api/chat`, streamed: one `ChatResponse` per NDJSON line, the last with `done`, `doneReason` and
    /// `metrics`.
    ///
    /// The stream ends after the `done` chunk; it throws `OllamaError` for an HTTP error, an `{"error": …}` line
    /// mid-stream (kind `.serverError`, status 200), a connection that breaks or closes before `done`, and a
    /// silence longer than `streamIdleTimeout`. Stopping iteration (or cancelling the consuming task) cancels the
    /// HTTP request at once.
    ///
    /// ```swift
    /// for try await chunk in client.chatStream(.init(model: "llama3.2", messages: [.user("Hi")])) {
    ///     print(chunk.message.content, terminator: "")
    /// }
    /// ```
    public func chatStream(_ request: ChatRequest) -> AsyncThrowingStream<ChatResponse, any Error> {
        let endpoint = "/api/chat"
        do {
            let body = try JSONEncoder().encode(Streaming(body: request, stream: true))
            return stream(try call(endpoint, method: "POST", json: body), endpoint: endpoint, model: request.model)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    /// `POST /api/generate` with `stream: false`: the whole completion in one value.
    public func generate(_ request: GenerateRequest) async throws -> GenerateResponse {
        let endpoint = "/api/generate"
        let body = try JSONEncoder().encode(Streaming(body: request, stream: false))
        return try await decode(endpoint, request: call(endpoint, method: "POST", json: body), model: request.model)
    }

    /// `POST /api/generate`, streamed: one `GenerateResponse` per line, ending after `done`; errors and
    /// cancellation as for `chatStream(_:)`.
    public func generateStream(_ request: GenerateRequest) -> AsyncThrowingStream<GenerateResponse, any Error> {
        let endpoint = "/api/generate"
        do {
            let body = try JSONEncoder().encode(Streaming(body: request, stream: true))
            return stream(try call(endpoint, method: "POST", json: body), endpoint: endpoint, model: request.model)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }
}

extension AsyncThrowingStream where Element == OllamaClient.ChatResponse {
    /// Collects a chat stream into one response: the content and thinking joined, tool calls gathered, the last
    /// chunk's `doneReason` and metrics.
    public func collect() async throws -> OllamaClient.ChatResponse {
        var content = ""
        var thinking = ""
        var calls: [OllamaClient.ToolCall] = []
        var last: OllamaClient.ChatResponse?
        for try await chunk in self {
            content += chunk.message.content
            thinking += chunk.message.thinking ?? ""
            calls += chunk.message.toolCalls ?? []
            last = chunk
        }
        guard var result = last else {
            throw OllamaError(
                kind: .unexpectedResponse, message: "ollama sent no chunks on /api/chat — retry",
                endpoint: "/api/chat")
        }
        result.message = OllamaClient.Message(
            role: .assistant, content: content, thinking: thinking.isEmpty ? nil : thinking,
            toolCalls: calls.isEmpty ? nil : calls)
        return result
    }
}
