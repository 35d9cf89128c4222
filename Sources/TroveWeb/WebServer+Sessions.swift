import Foundation
import TroveKit
import TroveSystem

/// `/api/sessions`: the chats `trove chat --session` keeps in the index, listed, read, created, renamed and deleted.
extension WebServer {
    /// `GET /api/sessions`, `POST /api/sessions` (`{"name", "chat_model"?}`), and for one session
    /// `GET`, `PATCH` (`{"name": NEW}`) and `DELETE /api/sessions/NAME`.
    func sessions(_ request: HTTPRequest, route: [String]) async throws -> HTTPResponse {
        let index = try tools.index()
        switch (request.method, route.count) {
        case ("GET", 0):
            let list = try await index.chatSessions().map { summary -> JSON in
                [
                    "name": .string(summary.name), "chat_model": .string(summary.chatModel),
                    "messages": .integer(Int64(summary.messages)),
                    "updated_at": .string(Self.timestamp(summary.updatedAt)),
                ]
            }
            return WebResponses.json(["sessions": .array(list)])
        case ("POST", 0):
            let name = try Self.name(in: request)
            let model = JSON.parse(request.body)?["chat_model"]?.stringValue ?? settings.tools.chatModel
            return WebResponses.json(Self.json(try await index.chatSession(named: name, chatModel: model)), status: 201)
        case ("GET", 1):
            return WebResponses.json(Self.json(try await index.existingChatSession(named: route[0])))
        case ("PATCH", 1):
            let name = try Self.name(in: request)
            try await index.renameChatSession(route[0], to: name)
            return WebResponses.json(Self.json(try await index.existingChatSession(named: name)))
        case ("DELETE", 1):
            try await index.deleteChatSession(route[0])
            return WebResponses.json(["deleted": .string(route[0])])
        default:
            return WebResponses.error(
                405, "\(request.method) \(request.path) is not served — sessions take GET, POST, PATCH and DELETE")
        }
    }

    /// A session with its turns; each answer's sources are the lines `trove chat` stored.
    static func json(_ session: ChatSession) -> JSON {
        [
            "name": .string(session.name), "chat_model": .string(session.chatModel),
            "turns": .array(
                session.turns.map { turn in
                    [
                        "role": .string(turn.role.rawValue), "content": .string(turn.content),
                        "sources": JSON.parse(Data(turn.sources.utf8)) ?? [], "interrupted": .bool(turn.interrupted),
                    ]
                }),
        ]
    }

    /// The `name` of a request's JSON body.
    private static func name(in request: HTTPRequest) throws -> String {
        guard let name = JSON.parse(request.body)?["name"]?.stringValue,
            !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else { throw WebError.usage("send the session's name as {\"name\": \"…\"}") }
        return name
    }

    /// Seconds since 1970 as ISO 8601, UTC.
    static func timestamp(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
