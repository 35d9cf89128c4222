import Ollama

/// A chat model on an Ollama server: `/api/show` to inspect, `/api/chat` streamed as NDJSON.
public struct OllamaChatModel: ChatModel {
    public let client: OllamaClient
    public let name: String
    public var provider: Provider { .ollama }

    public init(client: OllamaClient, name: String) {
        self.client = client
        self.name = name
    }

    /// Checks the model is pulled and can chat; its window is `--num-ctx`, else its own context length (Ollama's
    /// default of 4096 when it does not say) up to `maxContext`: a larger window costs memory whether used or not.
    public func inspect(contextWindow: Int?, maxContext: Int) async throws -> ChatModelInfo {
        let details = try await client.show(model: name)
        if !details.capabilities.isEmpty && !details.capabilities.contains("completion") {
            throw OllamaError(
                kind: .notCapable,
                message: "model '\(name)' cannot chat — choose a chat model, e.g. ollama pull llama3.2",
                endpoint: "/api/show")
        }
        return ChatModelInfo(
            name: name, contextWindow: contextWindow ?? min(details.contextLength ?? 4096, maxContext),
            provider: provider)
    }

    /// Streams `/api/chat` with `num_ctx` sent explicitly (Ollama's own default is smaller than most models').
    public func stream(_ request: ChatModelRequest) -> AsyncThrowingStream<ChatModelEvent, any Error> {
        let chat = OllamaClient.ChatRequest(
            model: request.model.name,
            messages: request.messages.map { OllamaClient.Message(role: .init(rawValue: $0.role.rawValue), content: $0.content) },
            options: OllamaClient.Options(
                temperature: request.temperature, numPredict: request.limitedByUser ? request.maxTokens : nil,
                numCtx: request.model.contextWindow, seed: request.seed))
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ChatModelEvent.self)
        let task = Task {
            do {
                for try await chunk in client.chatStream(chat) {
                    if !chunk.message.content.isEmpty { continuation.yield(.token(chunk.message.content)) }
                    if chunk.done {
                        continuation.yield(
                            .end(ChatModelEnd(finishReason: chunk.doneReason, promptTokens: chunk.metrics.promptEvalCount)))
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

extension OllamaError: ChatModelUnavailability {
    var unreachable: Bool { kind == .unreachable }
    var modelMissing: Bool { kind == .modelMissing || kind == .notCapable }
}
