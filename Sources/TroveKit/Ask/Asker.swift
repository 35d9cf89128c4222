import Ollama
import TroveIngest

/// How `trove ask` and `trove chat` talk to the chat model.
public struct AskOptions: Sendable {
    public var chatModel: String
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
    /// Upper bound for `num_ctx`: a larger window costs the server memory whether it is used or not.
    public var maxContext = 8192

    public init(chatModel: String) { self.chatModel = chatModel }
}

/// What the chat model was told and what it answered.
public struct Answer: Sendable {
    public var text: String
    /// Every source the model was given, numbered as in the prompt.
    public var sources: [NumberedSource]
    public var citations: Citations
    public var model: String
    /// Prompt tokens Ollama evaluated (`prompt_eval_count`), when it said.
    public var promptTokens: Int?
    /// True when Ollama evaluated fewer prompt tokens than the prompt certainly holds: it dropped context.
    public var truncated: Bool
    /// `stop`, `length`, … as Ollama reported it; nil when interrupted.
    public var doneReason: String?
    /// True when the user stopped the answer (Ctrl-C).
    public var interrupted: Bool

    /// The sources the answer cited, in order of first citation.
    public var citedSources: [NumberedSource] {
        citations.cited.compactMap { number in sources.first { $0.number == number } }
    }
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
    /// The `num_ctx` trove sends.
    public var contextWindow: Int
}

/// Retrieval-augmented answers: retrieve, pack the best passages into the context window as quoted data, stream
/// the model's answer, then check its citations and whether Ollama dropped anything.
public struct Asker: Sendable {
    public let client: OllamaClient
    public let options: AskOptions

    public init(client: OllamaClient, options: AskOptions) {
        self.client = client
        self.options = options
    }

    /// Checks the chat model is pulled and can chat, and learns its context length — before any retrieval work.
    public func inspectModel() async throws -> ChatModelInfo {
        let details = try await client.show(model: options.chatModel)
        if !details.capabilities.isEmpty && !details.capabilities.contains("completion") {
            throw OllamaError(
                kind: .notCapable,
                message: "model '\(options.chatModel)' cannot chat — choose a chat model, e.g. ollama pull llama3.2",
                endpoint: "/api/show")
        }
        // Ollama's own default window when the model does not say.
        let context = details.contextLength ?? 4096
        return ChatModelInfo(name: options.chatModel, contextWindow: min(context, options.maxContext))
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
    /// returns the partial answer marked interrupted.
    public func answer(
        question: String, hits: [SearchHit], history: [OllamaClient.Message], model: ChatModelInfo,
        onToken: @Sendable (String) -> Void
    ) async throws -> Answer {
        let system = PromptBuilder.systemPrompt(custom: options.systemPrompt)
        let answerReserve = min(1024, model.contextWindow / 4)
        let fixed = PromptBuilder.tokens(of: system) + PromptBuilder.tokens(of: "Question: " + question)
            + history.reduce(0) { $0 + PromptBuilder.tokens(of: $1.content) } + 16
        let packer = ContextPacker(contextLength: model.contextWindow, answerReserve: answerReserve, fixedTokens: fixed)
        let sources = packer.pack(hits).sources
        let messages =
            [OllamaClient.Message.system(system)] + history
            + [.user(PromptBuilder.userMessage(question: question, sources: sources))]
        let request = OllamaClient.ChatRequest(
            model: model.name, messages: messages,
            options: OllamaClient.Options(
                temperature: options.temperature, numCtx: model.contextWindow, seed: options.seed))

        var text = ""
        var last: OllamaClient.ChatResponse?
        var interrupted = false
        do {
            for try await chunk in client.chatStream(request) {
                if !chunk.message.content.isEmpty {
                    text += chunk.message.content
                    onToken(chunk.message.content)
                }
                if chunk.done { last = chunk }
                if Task.isCancelled { break }
            }
            interrupted = Task.isCancelled
        } catch let error as OllamaError where error.kind == .cancelled {
            interrupted = true
        } catch is CancellationError {
            interrupted = true
        }
        let promptTokens = last?.metrics.promptEvalCount
        let sent = messages.reduce(0) { $0 + Self.tokenLowerBound($1.content) }
        return Answer(
            text: text, sources: sources, citations: Citations(answer: text, sourceCount: sources.count),
            model: model.name, promptTokens: promptTokens,
            truncated: promptTokens.map { $0 < sent } ?? false, doneReason: interrupted ? nil : last?.doneReason,
            interrupted: interrupted)
    }

    /// A count the real prompt cannot be below: every whitespace-separated word is at least one token in any
    /// tokenizer, and the chat template only adds tokens. Ollama evaluating fewer means it cut the prompt.
    static func tokenLowerBound(_ text: String) -> Int {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).count
    }
}
