import TroveIngest
import TroveStore
import TroveSystem

/// How `trove ask` and `trove chat` talk to the chat model.
public struct AskOptions: Sendable {
    public var chatModel: String
    /// The server that writes the answer; nil is the configuration's chat provider.
    public var chatProvider: Provider?
    /// Passages retrieved before packing.
    public var limit = 8
    /// Below this vector score a passage does not count as covering the question.
    public var minScore: Float = 0.25
    /// Ask the model even when no passage covers the question.
    public var allowGeneral = false
    public var temperature: Double?
    public var seed: Int?
    /// Replaces the built-in instructions; the rule that sources are data is always added to it.
    public var systemPrompt: String?
    /// Upper bound for a window the model reports: a larger `num_ctx` costs Ollama memory whether used or not.
    public var maxContext = 8192
    /// `--num-ctx`: the window to pack for (Ollama: sent as `num_ctx`; an OpenAI-compatible server's own, where it
    /// says, wins). Nil: the model's own.
    public var contextWindow: Int?
    /// `--max-tokens`: the answer stops after this many tokens (reported as `length`); nil leaves the room the
    /// packer kept for it (a quarter of the window, at most 1024) on an OpenAI-compatible server, and Ollama's own.
    public var maxAnswerTokens: Int?

    public init(chatModel: String) { self.chatModel = chatModel }
}

/// What the chat model was told and what it answered.
public struct Answer: Sendable {
    public var text: String
    /// Every source the model was given, numbered as in the prompt.
    public var sources: [NumberedSource]
    public var citations: Citations
    public var model: String
    /// Who served the model.
    public var provider: Provider
    /// Prompt tokens the server reported (`prompt_eval_count`, `usage.prompt_tokens`), when it said.
    public var promptTokens: Int?
    /// Prompt tokens it said it served from its cache.
    public var cachedTokens: Int?
    /// Whether the server kept the whole prompt, as far as its counts tell.
    public var truncation: TruncationCheck
    /// `stop`, `length`, … as the server reported it; nil when interrupted.
    public var doneReason: String?
    /// True when the user stopped the answer (Ctrl-C).
    public var interrupted: Bool
    /// Why the answer broke off when the server failed after writing part of it (the part is `text`).
    public var failure: AnswerFailure?

    /// True when the server dropped part of the prompt.
    public var truncated: Bool { truncation == .cut }

    /// The sources the answer cited, in order of first citation.
    public var citedSources: [NumberedSource] {
        citations.cited.compactMap { number in sources.first { $0.number == number } }
    }

    /// The sources the model was given but did not cite: all of them when it cited none, so a user still has
    /// something to check the answer against.
    public var uncitedSources: [NumberedSource] {
        sources.filter { !citations.cited.contains($0.number) }
    }
}

/// A server failure in the middle of an answer.
public struct AnswerFailure: Sendable, Equatable {
    /// The error's sentence.
    public var message: String
    /// How a front end should report it.
    public var kind: Fault
}

/// Retrieval, then the passages that cover the question, before a model is asked anything.
public struct Retrieval: Sendable {
    public var hits: [SearchHit]
    /// True when at least one passage scores at or above the threshold.
    public var covered: Bool
}

/// The chat model's facts that decide how much fits.
public struct ChatModelInfo: Sendable, Equatable {
    public var name: String
    /// The window trove packs for (and sends to Ollama as `num_ctx`).
    public var contextWindow: Int
    /// Who serves the model.
    public var provider = Provider.ollama

    /// The facts of a model.
    public init(name: String, contextWindow: Int, provider: Provider = .ollama) {
        self.name = name
        self.contextWindow = contextWindow
        self.provider = provider
    }
}

/// Retrieval-augmented answers: retrieve, pack the best passages into the context window as quoted data, stream
/// the model's answer, then check its citations and whether the server dropped anything. The same for every
/// `ChatModel`.
public struct Asker: Sendable {
    public let chat: any ChatModel
    public let options: AskOptions

    public init(chat: any ChatModel, options: AskOptions) {
        self.chat = chat
        self.options = options
    }

    /// Checks the chat model is served and can chat, and learns its context window — before any retrieval work.
    public func inspectModel() async throws -> ChatModelInfo {
        try await chat.inspect(contextWindow: options.contextWindow, maxContext: options.maxContext)
    }
    /// Retrieves passages for `query` — hybrid ranking, every passage on its own rather than one per document,
    /// since several passages of one note may each be needed — and says whether any covers it. Coverage is judged
    /// on the vector score (cosine): the fused score only ranks, it does not say how close a passage is.
    public func retrieve(
        query: String, retriever: Retriever, embedder: any Embedder
    ) async throws -> Retrieval {
        retrieval(from: try await retriever.search(retrievalRequest(query: query), embedder: embedder))
    }

    /// The search `retrieve` runs.
    func retrievalRequest(query: String) -> SearchRequest {
        SearchRequest(query: query, mode: .hybrid, limit: options.limit, groupByDocument: false)
    }

    /// The hits of `retrievalRequest`, judged for coverage.
    func retrieval(from hits: [SearchHit]) -> Retrieval {
        Retrieval(hits: hits, covered: hits.contains { ($0.vectorScore ?? -1) >= options.minScore })
    }

    /// Streams an answer to `question` from `hits`, after `history` (older turns, already within budget).
    /// `onToken` receives each piece of the answer as it arrives. Cancelling the task stops generation and
    /// returns the partial answer marked interrupted; a server failing after part of the answer returns that part
    /// with the failure (one failing before any throws).
    public func answer(
        question: String, hits: [SearchHit], history: [PromptMessage], model: ChatModelInfo,
        onToken: @Sendable (String) -> Void
    ) async throws -> Answer {
        let system = PromptBuilder.systemPrompt(custom: options.systemPrompt)
        let answerReserve = min(1024, model.contextWindow / 4)
        let fixed = PromptBuilder.tokens(of: system) + PromptBuilder.tokens(of: "Question: " + question)
            + history.reduce(0) { $0 + PromptBuilder.tokens(of: $1.content) } + 16
        let packer = ContextPacker(contextLength: model.contextWindow, answerReserve: answerReserve, fixedTokens: fixed)
        let sources = packer.pack(hits).sources
        let messages =
            [PromptMessage(role: .system, content: system)] + history
            + [PromptMessage(role: .user, content: PromptBuilder.userMessage(question: question, sources: sources))]
        let request = ChatModelRequest(
            model: model, messages: messages, temperature: options.temperature, seed: options.seed,
            maxTokens: options.maxAnswerTokens.map { min($0, answerReserve) } ?? answerReserve,
            limitedByUser: options.maxAnswerTokens != nil)

        var text = ""
        var end: ChatModelEnd?
        var interrupted = false
        var failure: AnswerFailure?
        do {
            for try await event in chat.stream(request) {
                switch event {
                case .token(let piece):
                    text += piece
                    onToken(piece)
                case .end(let last):
                    end = last
                }
                if Task.isCancelled { break }
            }
            interrupted = Task.isCancelled
        } catch {
            switch Fault(error) {
            case .interrupted: interrupted = true
            case _ where Task.isCancelled: interrupted = true
            case let kind:
                // Nothing written: the error is the whole story. Something written: keep it, say why it stopped.
                guard !text.isEmpty else { throw error }
                failure = AnswerFailure(message: String(describing: error), kind: kind)
            }
        }
        let complete = !interrupted && failure == nil
        return Answer(
            text: text, sources: sources, citations: Citations(answer: text, sourceCount: sources.count),
            model: model.name, provider: model.provider, promptTokens: end?.promptTokens,
            cachedTokens: end?.cachedTokens,
            truncation: complete
                ? TruncationCheck.judge(end, messages: messages, contextWindow: model.contextWindow)
                : .unknown(reason: "the answer did not finish"),
            doneReason: complete ? end?.finishReason : nil, interrupted: interrupted, failure: failure)
    }
}
