import Foundation
import TroveStore
import TroveSystem

/// A stored chat as a list shows it, under TroveKit's name.
public typealias ChatSessionSummary = TroveStore.ChatSessionSummary

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

/// A session operation that cannot be done: no such session, or a name already taken.
public struct ChatSessionError: TroveError, Equatable {
    public var message: String
    public var fault: Fault
}

extension TroveIndex {
    /// Every stored chat, the most recently used first.
    public func chatSessions() throws -> [ChatSessionSummary] { try store.chatSessions() }

    /// The stored chat named `name` with its turns; an error when there is none (nothing is created).
    public func existingChatSession(named name: String) throws -> ChatSession {
        guard let record = try store.existingChatSession(named: name) else {
            throw ChatSessionError(
                message: "no chat session named '\(name)' — the list of sessions names those there are", fault: .usage)
        }
        return ChatSession(
            id: record.id, name: record.name, chatModel: record.chatModel,
            turns: try store.chatMessages(sessionID: record.id).map(ChatTurn.init))
    }

    /// Renames the stored chat `name`; refused when `newName` is empty or taken.
    public func renameChatSession(_ name: String, to newName: String) throws {
        let session = try existingChatSession(named: name)
        guard !newName.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ChatSessionError(message: "a chat session needs a non-empty name", fault: .usage)
        }
        guard try store.renameChatSession(sessionID: session.id, to: newName) else {
            throw ChatSessionError(
                message: "a chat session named '\(newName)' exists already — choose another name", fault: .usage)
        }
    }

    /// Deletes the stored chat `name` and its turns.
    public func deleteChatSession(_ name: String) throws {
        try store.deleteChatSession(sessionID: try existingChatSession(named: name).id)
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
