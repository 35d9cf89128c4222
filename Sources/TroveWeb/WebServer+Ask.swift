import Foundation
import TroveKit
import TroveMCP
import TroveOutput
import TroveSystem

/// `POST /api/ask`: an answer as Server-Sent Events, each token sent as the model writes it.
extension WebServer {
    /// The body's members.
    static let askMembers: Set<String> = ["question", "session", "chat_model", "limit", "extractive"]

    /// `{"question", "session"?, "chat_model"?, "limit"?, "extractive"?}` answered as `event: token`
    /// (`{"text", "received_ms"}`)
    /// per piece of the answer, then one `event: done` with `ask`'s result (mode, answer, sources, not_cited, …),
    /// `warnings` (the CLI's sentences) and `interrupted`; or `event: error` (`{"error"}`). With `session` the
    /// conversation is `trove chat --session`'s: its turns go to the model and the exchange is stored. When the
    /// client goes (Stop), the answer is cancelled on the server and stored marked interrupted.
    func ask(_ request: HTTPRequest) throws -> HTTPResponse {
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
        let chosenModel = body["chat_model"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        var options = AskOptions(chatModel: chosenModel ?? settings.tools.chatModel)
        if let limit = body["limit"] {
            guard let value = limit.integerValue, (1...50).contains(value) else {
                return WebResponses.error(400, "limit must be a whole number from 1 to 50")
            }
            options.limit = Int(value)
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

    /// One Server-Sent Event: its name and one line of JSON.
    static func event(_ name: String, _ data: JSON) -> Data {
        var bytes = Data("event: \(name)\ndata: ".utf8)
        bytes.append(data.encoded())
        bytes.append(contentsOf: Array("\n\n".utf8))
        return bytes
    }
}
