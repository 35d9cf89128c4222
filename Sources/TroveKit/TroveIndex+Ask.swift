/// A question for `ask`, with how to answer it.
public struct AskRequest: Sendable {
    public var question: String
    public var options: AskOptions
    /// The user named the chat model (flag, environment, config): if it cannot be used that is an error to fix,
    /// not a reason to fall back to an extractive answer.
    public var chatModelChosen = false
    /// Answer with the passages themselves; no chat model is asked.
    public var extractive = false
    /// The chat so far: the question is searched together with the previous one, and the newest turns that fit a
    /// quarter of the context go to the model.
    public var conversation: Conversation?
    /// The chat model as already inspected (a chat inspects it once); nil inspects `options.chatModel` first.
    public var model: ChatModelInfo?

    public init(question: String, options: AskOptions) {
        self.question = question
        self.options = options
    }
}

/// How a question was answered.
public enum AskOutcome: Sendable {
    /// A chat model wrote the answer; its citations are checked.
    case answered(Answer)
    /// No chat model could be used: the best passages themselves, with the reason.
    case extractive(ExtractiveAnswer)
    /// No passage covers the question; the model was not asked. Holds the nearest passages.
    case uncovered(Retrieval)
}

/// What `askEvents` reports: the answer as it is written, then how it ended.
public enum AskEvent: Sendable {
    case token(String)
    case finished(AskOutcome)
}

extension TroveIndex {
    /// Answers a question from the index: inspects the chat model first (a missing one costs nothing else), retrieves
    /// passages, and streams the model's answer through `onToken`. Without a usable chat model — Ollama not running,
    /// or the default model not served — the answer is extractive, as the CLI's. Cancelling the calling task stops
    /// the answer; it comes back marked interrupted.
    public func ask(_ request: AskRequest, onToken: @escaping @Sendable (String) -> Void = { _ in }) async throws
        -> AskOutcome
    {
        let options = request.options
        let asker = Asker(
            chat: try configuration.chatModel(named: options.chatModel, provider: options.chatProvider),
            options: options)
        let choice = try await chatModel(for: request, asker: asker)
        let query = request.conversation?.retrievalQuery(for: request.question) ?? request.question
        let retrieval = asker.retrieval(from: try await search(asker.retrievalRequest(query: query)))
        guard retrieval.covered || (request.options.allowGeneral && choice.model != nil) else {
            return .uncovered(retrieval)
        }
        guard let model = choice.model else {
            return .extractive(
                ExtractiveAnswer(
                    question: request.question, retrieval: retrieval, minScore: request.options.minScore,
                    reason: choice.reason))
        }
        let history = request.conversation?.history(budget: model.contextWindow / 4) ?? []
        return .answered(
            try await asker.answer(
                question: request.question, hits: retrieval.hits, history: history, model: model, onToken: onToken))
    }

    /// `ask` as a stream of events; ending the iteration early cancels the answer.
    public nonisolated func askEvents(_ request: AskRequest) -> AsyncThrowingStream<AskEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: AskEvent.self)
        let task = Task {
            do {
                let outcome = try await ask(request) { continuation.yield(.token($0)) }
                continuation.yield(.finished(outcome))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Checks a chat model is served and can chat, and learns its context window.
    public nonisolated func inspectChatModel(_ options: AskOptions) async throws -> ChatModelInfo {
        let chat = try configuration.chatModel(named: options.chatModel, provider: options.chatProvider)
        return try await Asker(chat: chat, options: options).inspectModel()
    }

    /// The model to ask, or why there is none and the answer is extractive.
    private func chatModel(for request: AskRequest, asker: Asker) async throws -> (
        model: ChatModelInfo?, reason: String
    ) {
        if let model = request.model { return (model, "") }
        if request.extractive { return (nil, "--extractive asks no chat model") }
        do {
            return (try await asker.inspectModel(), "")
        } catch {
            let judged = isChatModelUnavailable(error, includingMissing: !request.chatModelChosen)
            guard judged.unavailable else { throw error }
            return (nil, judged.message)
        }
    }
}
