import OpenAICompatible

/// A chat model on an OpenAI-compatible server: `/v1/models` to inspect, `/v1/chat/completions` streamed as SSE,
/// with `stream_options.include_usage` for the token counts.
public struct OpenAIChatModel: ChatModel {
    public let client: OpenAIClient
    public let name: String
    public var provider: Provider { .openai }

    public init(client: OpenAIClient, name: String) {
        self.client = client
        self.name = name
    }

    /// Checks the model is listed on `/v1/models` (an empty name takes the first listed: llama.cpp serves one). The
    /// window is the server's own where it says (llama.cpp's `/props`), else `--num-ctx`, else 4096, at most
    /// `maxContext`.
    public func inspect(contextWindow: Int?, maxContext: Int) async throws -> ChatModelInfo {
        let served = try await client.models()
        let model = name.isEmpty ? served.first ?? "" : name
        guard !model.isEmpty else {
            throw OpenAIError(
                kind: .notFound, message: "\(client.displayURL) lists no models — name one with --chat-model")
        }
        guard served.isEmpty || served.contains(model) else {
            throw OpenAIError(
                kind: .notFound,
                message: "model '\(model)' is not served at \(client.displayURL) — it serves: "
                    + served.joined(separator: ", ") + "; use --chat-model \(served[0])")
        }
        let window: Int
        if let server = await client.contextSize() {
            window = min(server, contextWindow ?? server)
        } else {
            window = contextWindow ?? min(4096, maxContext)
        }
        return ChatModelInfo(name: model, contextWindow: window, provider: provider)
    }

    public func stream(_ request: ChatModelRequest) -> AsyncThrowingStream<ChatModelEvent, any Error> {
        let chat = ChatRequest(
            model: request.model.name,
            messages: request.messages.map { ChatMessage(role: $0.role.rawValue, content: $0.content) },
            temperature: request.temperature, maxTokens: request.maxTokens, seed: request.seed)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ChatModelEvent.self)
        let task = Task {
            var end = ChatModelEnd()
            do {
                for try await event in client.chatStream(chat) {
                    switch event {
                    case .content(let text): continuation.yield(.token(text))
                    case .finished(let reason): end.finishReason = reason
                    case .usage(let usage):
                        end.promptTokens = usage.promptTokens
                        end.cachedTokens = usage.cachedTokens
                    }
                }
                // The usage chunk comes after the one with finish_reason: report both once the stream is done.
                continuation.yield(.end(end))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

extension OpenAIError: ChatModelUnavailability {
    var unreachable: Bool { kind == .unreachable || kind == .timeout }
    var modelMissing: Bool { kind == .notFound }
}
