/// One message of a conversation.
public struct ChatMessage: Sendable, Equatable, Codable {
    public var role: String
    public var content: String

    public init(role: String, content: String) {
        self.role = role
        self.content = content
    }
}

/// `POST /v1/chat/completions`, always streamed here.
public struct ChatRequest: Sendable, Equatable, Encodable {
    public var model: String
    public var messages: [ChatMessage]
    public var temperature: Double?
    public var maxTokens: Int?
    public var seed: Int?
    /// Asks for a last chunk with token counts (`stream_options.include_usage`).
    public var includeUsage = true
    let stream = true

    public init(model: String, messages: [ChatMessage], temperature: Double? = nil, maxTokens: Int? = nil, seed: Int? = nil) {
        self.model = model
        self.messages = messages
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.seed = seed
    }

    enum CodingKeys: String, CodingKey {
        case model, messages, temperature, seed, stream
        case maxTokens = "max_tokens"
        case streamOptions = "stream_options"
    }
    enum StreamOptionKeys: String, CodingKey { case includeUsage = "include_usage" }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(model, forKey: .model)
        try container.encode(messages, forKey: .messages)
        try container.encodeIfPresent(temperature, forKey: .temperature)
        try container.encodeIfPresent(maxTokens, forKey: .maxTokens)
        try container.encodeIfPresent(seed, forKey: .seed)
        try container.encode(stream, forKey: .stream)
        if includeUsage {
            var options = container.nestedContainer(keyedBy: StreamOptionKeys.self, forKey: .streamOptions)
            try options.encode(true, forKey: .includeUsage)
        }
    }
}

/// One `chat.completion.chunk` of a stream.
struct ChatChunk: Decodable {
    struct Choice: Decodable {
        struct Delta: Decodable { var content: String? }
        var delta: Delta?
        var finishReason: String?
        enum CodingKeys: String, CodingKey {
            case delta
            case finishReason = "finish_reason"
        }
    }
    var choices: [Choice]?
    var usage: Usage?
}

/// What a chat stream delivers, in order.
public enum ChatStreamEvent: Sendable, Equatable {
    /// The next piece of the answer.
    case content(String)
    /// Why the model stopped: `stop`, or `length` when it ran out of tokens.
    case finished(reason: String)
    /// Token counts (with `includeUsage`).
    case usage(Usage)
}
