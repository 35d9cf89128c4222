import TroveStore

/// Who wrote a turn of a chat, under TroveKit's name.
public typealias ChatRole = TroveStore.ChatRole

/// One stored turn of a chat.
public struct ChatTurn: Sendable, Equatable {
    public var role: ChatRole
    public var content: String
    /// The cited sources of an answer, as JSON.
    public var sources: String
    /// The answer was stopped before it was complete.
    public var interrupted: Bool

    /// A turn from its parts.
    public init(role: ChatRole, content: String, sources: String = "[]", interrupted: Bool = false) {
        self.role = role
        self.content = content
        self.sources = sources
        self.interrupted = interrupted
    }
}

/// A named chat kept in the index, with its turns.
public struct ChatSession: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var chatModel: String
    public var turns: [ChatTurn]
}

extension TroveIndex {
    /// The chat named `name` with its stored turns, created (with `chatModel`) when it does not exist.
    public func chatSession(named name: String, chatModel: String) throws -> ChatSession {
        let record = try store.chatSession(named: name, chatModel: chatModel)
        return ChatSession(
            id: record.id, name: record.name, chatModel: record.chatModel,
            turns: try store.chatMessages(sessionID: record.id).map(ChatTurn.init))
    }

    /// Stores more turns at the end of a session.
    public func appendChatTurns(_ turns: [ChatTurn], to session: ChatSession) throws {
        try store.appendChatMessages(sessionID: session.id, turns.map(\.record))
    }

    /// Replaces a session's turns (`/reset` with none, `/save NAME` into a copy).
    public func replaceChatTurns(of session: ChatSession, with turns: [ChatTurn]) throws {
        try store.replaceChatMessages(sessionID: session.id, with: turns.map(\.record))
    }

    /// Records the chat model a session uses from now on.
    public func setChatModel(_ model: String, of session: ChatSession) throws {
        try store.setChatModel(sessionID: session.id, model)
    }
}

extension ChatTurn {
    init(_ record: ChatMessageRecord) {
        self.init(
            role: record.role, content: record.content, sources: record.sources, interrupted: record.interrupted)
    }

    var record: ChatMessageRecord {
        ChatMessageRecord(role: role, content: content, sources: sources, interrupted: interrupted)
    }
}
