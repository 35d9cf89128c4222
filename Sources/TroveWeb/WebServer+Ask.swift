import Foundation
import TroveKit
import TroveMCP
import TroveOutput
import TroveSystem

/// `POST /api/ask`: an answer as Server-Sent Events, each token sent as the model writes it.
extension WebServer {
    /// The body's members.
    static let askMembers: Set<String> = [
        "question", "session", "chat_provider", "chat_model", "limit", "max_tokens", "extractive",
    ]

    /// `{"question", "session"?, "chat_provider"?, "chat_model"?, "limit"?, "max_tokens"?, "extractive"?}` answered
    /// as `event: token` (`{"text", "received_ms"}`) per piece of the answer, then one `event: done` with `ask`'s
    /// result (mode, answer, model, provider, sources, not_cited, …), `warnings` (the CLI's sentences) and
    /// `interrupted`; or `event: error` (`{"error"}`). A named provider or model must be one `/api/models` lists
    /// (else 400, before anything streams). With `session` the conversation is `trove chat --session`'s: its turns
    /// go to the model and the exchange is stored. When the client goes (Stop), the answer is cancelled on the
    /// server and stored marked interrupted.
    func ask(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let body = JSON.parse(request.body), let members = body.objectValue else {
            return WebResponses.error(400, "ask takes a JSON object like {\"question\": \"…\"}")
        }
        if let unknown = members.keys.sorted().first(where: { !Self.askMembers.contains($0) }) {
            return WebResponses.error(
                400, "ask has no member '\(unknown)' — it takes \(Self.askMembers.sorted().joined(separator: ", "))")
        }
        let question = body["question"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !question.isEmpty else { return WebResponses.error(400, "ask needs a non-empty question") }
        let session = body["session"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let choice = try await chatChoice(
            provider: try Self.text(body, "chat_provider"), model: try Self.text(body, "chat_model"))
        let chosenModel = choice?.model
        var options = AskOptions(chatModel: chosenModel ?? settings.tools.chatModel)
        options.chatProvider = choice?.provider
        if let limit = body["limit"] {
            guard let value = limit.integerValue, (1...50).contains(value) else {
                return WebResponses.error(400, "limit must be a whole number from 1 to 50")
            }
            options.limit = Int(value)
        }
        if let value = body["max_tokens"] {
            guard let number = value.integerValue, number >= 1 else {
                return WebResponses.error(400, "max_tokens must be a whole number from 1")
            }
            options.maxAnswerTokens = Int(number)
        }
        let extractive = body["extractive"]?.boolValue ?? false
        let index = try tools.index()

        let stream = ResponseStream(heartbeat: Data(": \n\n".utf8), heartbeatInterval: 0.5)
        let chatModelChosen = settings.tools.chatModelChosen || chosenModel != nil
        let task = Task {
            do {
                var askRequest = AskRequest(question: question, options: options)
                askRequest.chatModelChosen = chatModelChosen
                askRequest.extractive = extractive
                var record: ChatSession?
                if let session {
                    let found = try await index.chatSession(named: session, chatModel: options.chatModel)
                    if let chosenModel, chosenModel != found.chatModel {
                        try await index.setChatModel(chosenModel, of: found)
                    } else if chosenModel == nil {
                        askRequest.options.chatModel = found.chatModel
                    }
                    askRequest.conversation = Conversation(turns: found.turns)
                    record = found
                }
                let outcome = try await index.ask(askRequest) { token in
                    // When the server received it (ms since 1970): a client can measure its own delay.
                    let received = (Date().timeIntervalSince1970 * 1000).rounded()
                    stream.write(Self.event("token", ["text": .string(token), "received_ms": .number(received)]))
                }
                var done = MCPTools.result(of: outcome).objectValue ?? [:]
                done["interrupted"] = false
                done["warnings"] = []
                if case .answered(let answer) = outcome {
                    done["interrupted"] = .bool(answer.interrupted)
                    done["warnings"] = .array(AnswerWarnings.lines(answer).map(JSON.string))
                    if let record {
                        try await index.appendChatTurns(
                            ChatExchange.turns(question: question, answer: answer), to: record)
                    }
                }
                if let session { done["session"] = .string(session) }
                stream.write(Self.event("done", .object(done)))
            } catch {
                stream.write(Self.event("error", ["error": .string(String(describing: error))]))
            }
            stream.finish()
        }
        // Stop in the page closes the connection: the next heartbeat fails, and the answer is cancelled here.
        stream.onClose { task.cancel() }
        return HTTPResponse(
            status: 200,
            headers: WebResponses.common + [
                ("Content-Type", "text/event-stream; charset=utf-8"), ("X-Accel-Buffering", "no"),
            ],
            body: .stream(stream))
    }

    /// The chat server and model a request names (`chat_provider`, `chat_model`), checked against what that server
    /// lists; nil when it names neither (the defaults, and an extractive answer when they cannot be used, as
    /// `trove ask`). A provider not configured here, or a model its server does not list, is the request's fault
    /// (400); a server that cannot be asked is 503.
    func chatChoice(provider word: String?, model: String?) async throws -> (provider: Provider, model: String)? {
        guard word != nil || model != nil else { return nil }
        let configuration = settings.tools.configuration
        let offered = configuration.chatProviders
        var provider = configuration.chatProvider
        if let word {
            guard let named = Provider(rawValue: word), offered.contains(named) else {
                let more =
                    offered.contains(.openai) ? "" : " (trove web --chat-base-url URL adds an OpenAI-compatible one)"
                throw WebError.usage(
                    "chat provider '\(word)' is not configured here — choose \(Provider.spelled(offered))\(more)")
            }
            provider = named
        }
        let listing = try await configuration.chatModels(of: provider)
        let fallback = provider == configuration.chatProvider ? settings.tools.chatModel : ""
        let name = model ?? (fallback.isEmpty ? listing.models.first ?? "" : fallback)
        guard listing.serves(name) else {
            let listed = listing.models.isEmpty ? "it lists none" : "choose " + listing.models.joined(separator: ", ")
            throw WebError.usage("chat model '\(name)' is not served by \(provider) — \(listed) (GET /api/models)")
        }
        return (provider, name)
    }

    /// A string member of the body, nil when absent or empty; anything but a string is the request's fault.
    static func text(_ body: JSON, _ member: String) throws -> String? {
        guard let value = body[member], value != .null else { return nil }
        guard let text = value.stringValue else { throw WebError.usage("\(member) must be a string") }
        return text.isEmpty ? nil : text
    }

    /// One Server-Sent Event: its name and one line of JSON.
    static func event(_ name: String, _ data: JSON) -> Data {
        var bytes = Data("event: \(name)\ndata: ".utf8)
        bytes.append(data.encoded())
        bytes.append(contentsOf: Array("\n\n".utf8))
        return bytes
    }
}
