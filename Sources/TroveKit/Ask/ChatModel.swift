/// Writes answers, streamed: a model on an Ollama server or on any OpenAI-compatible one (llama.cpp, LM Studio,
/// vLLM, OpenAI). `Asker` builds the prompt, checks citations and judges truncation the same way for every one.
public protocol ChatModel: Sendable {
    /// Who serves the model: one of `Provider.chatting`.
    var provider: Provider { get }
    /// The model as the user named it (empty: the server's only model, where it serves one).
    var name: String { get }
    /// Checks the model is served and can chat, and learns its context window, before any retrieval work.
    /// `contextWindow` is `--num-ctx` (nil: the model's own, at most `maxContext`).
    func inspect(contextWindow: Int?, maxContext: Int) async throws -> ChatModelInfo
    /// The answer as it is written, then one `.end`. Cancelling the consuming task stops generation.
    func stream(_ request: ChatModelRequest) -> AsyncThrowingStream<ChatModelEvent, any Error>
}

/// One message of a prompt, whichever server receives it.
public struct PromptMessage: Sendable, Equatable {
    public enum Role: String, Sendable { case system, user, assistant }
    public var role: Role
    public var content: String

    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }
}

/// What one answer is asked with.
public struct ChatModelRequest: Sendable {
    public var model: ChatModelInfo
    public var messages: [PromptMessage]
    public var temperature: Double?
    public var seed: Int?
    /// Tokens the answer may take (the room the packer left it, or less when the user asked).
    public var maxTokens: Int?
    /// The user set `maxTokens` (Ollama then gets it as `num_predict`; otherwise it keeps its own default).
    public var limitedByUser = false
}

/// A stream event of `ChatModel.stream`.
public enum ChatModelEvent: Sendable, Equatable {
    /// The next piece of the answer.
    case token(String)
    /// How generation ended, with the server's token counts.
    case end(ChatModelEnd)
}

/// The server's account of a finished answer.
public struct ChatModelEnd: Sendable, Equatable {
    /// `stop`, `length`, … as the server said.
    public var finishReason: String?
    /// Prompt tokens the server reported (Ollama `prompt_eval_count`, OpenAI `usage.prompt_tokens`).
    public var promptTokens: Int?
    /// Prompt tokens served from its cache, where it says (`prompt_tokens_details.cached_tokens`).
    public var cachedTokens: Int?

    public init(finishReason: String? = nil, promptTokens: Int? = nil, cachedTokens: Int? = nil) {
        self.finishReason = finishReason
        self.promptTokens = promptTokens
        self.cachedTokens = cachedTokens
    }
}

/// Whether the server kept the whole prompt, judged from the counts it reported.
public enum TruncationCheck: Sendable, Equatable {
    /// It read at least every token sent.
    case complete
    /// It read fewer than were certainly sent: it dropped part of the prompt.
    case cut
    /// It cannot be told; `reason` says why.
    case unknown(reason: String)

    /// Judges `end` against the prompt `messages` sent into a window of `contextWindow` tokens.
    ///
    /// The packer leaves room for the answer, so a prompt that fits never fills the window: a count that does
    /// (within a few tokens) is a server that cut the prompt to its window, as Ollama does. Otherwise `sent`, a count
    /// the real prompt cannot be below (every whitespace-separated word is at least one token), decides: a count
    /// short of it is a cut when the cache is accounted for (the server gave a cached count). Without one, a short
    /// count may be a prompt prefix the server had cached and left out of its count (ollama/ollama#2068, #3427: a
    /// chat follow-up, a question asked twice), so it is reported as unknown rather than as a cut.
    public static func judge(_ end: ChatModelEnd?, messages: [PromptMessage], contextWindow: Int) -> TruncationCheck {
        guard let reported = end?.promptTokens else {
            return .unknown(reason: "the server reported no prompt token count")
        }
        let sent = messages.reduce(0) { $0 + tokenLowerBound($1.content) }
        let cached = end?.cachedTokens
        let counted = reported + (reported < sent ? cached ?? 0 : 0)
        if counted >= contextWindow - 16 { return .cut }
        if counted >= sent { return .complete }
        if cached != nil { return .cut }
        return .unknown(
            reason: "the server counted \(reported) prompt tokens of at least \(sent) sent and no cached count; "
                + "a prompt prefix it had cached can explain that")
    }

    /// A count the real prompt cannot be below: every whitespace-separated word is at least one token in any
    /// tokenizer, and the chat template only adds tokens.
    static func tokenLowerBound(_ text: String) -> Int {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).count
    }
}

/// Whether `error` from a chat model's `inspect` means there is no usable model here (the server is not running,
/// or the model is not served), as opposed to a fault to report.
func isChatModelUnavailable(_ error: any Error, includingMissing: Bool) -> (unavailable: Bool, message: String) {
    // Implemented by each provider's error type below.
    if let error = error as? any ChatModelUnavailability {
        return (error.unreachable || (includingMissing && error.modelMissing), error.message)
    }
    return (false, String(describing: error))
}

/// What `ask` needs to know of a provider's errors to fall back to an extractive answer.
protocol ChatModelUnavailability {
    var unreachable: Bool { get }
    var modelMissing: Bool { get }
    var message: String { get }
}
