import CSQLite
import Foundation

/// A stored conversation of `trove chat`.
package struct ChatSessionRecord: Sendable, Equatable {
    package var id: Int64
    package var name: String
    package var chatModel: String
}

/// A stored conversation as a list shows it.
public struct ChatSessionSummary: Sendable, Equatable {
    public var name: String
    public var chatModel: String
    /// Stored messages (a question and its answer are two).
    public var messages: Int
    /// When a message was last stored (or the session made), in seconds since 1970.
    public var updatedAt: Int64
}

/// Who wrote a turn of a conversation. Stored as its raw value; the schema also allows `summary`, which nothing
/// writes (migrations are append-only, so the constraint stays).
public enum ChatRole: String, Sendable, CaseIterable {
    /// The person asking.
    case user
    /// The chat model answering.
    case assistant

    /// The role a stored row holds; `damaged` makes the store's error for any other text.
    static func decode(_ text: String, damaged: (String) -> StoreError) throws -> ChatRole {
        guard let role = ChatRole(rawValue: text) else {
            throw damaged("a chat message has the role \"\(text)\", not user or assistant")
        }
        return role
    }
}

/// One stored turn of a conversation.
package struct ChatMessageRecord: Sendable, Equatable {
    package var role: ChatRole
    package var content: String
    /// The sources shown with an answer, as JSON.
    package var sources: String
    /// True for an answer cut short by Ctrl-C.
    package var interrupted: Bool

    /// A turn from its parts.
    package init(role: ChatRole, content: String, sources: String = "[]", interrupted: Bool = false) {
        self.role = role
        self.content = content
        self.sources = sources
        self.interrupted = interrupted
    }
}

extension SQLiteStore {
    /// The session called `name`, created (with `chatModel`) when it does not exist yet.
    package func chatSession(named name: String, chatModel: String) throws -> ChatSessionRecord {
        try inTransaction {
            let now = Int64(Date().timeIntervalSince1970)
            let found = try database.withStatement("SELECT id, chat_model FROM chat_sessions WHERE name = ?") {
                statement -> ChatSessionRecord? in
                try statement.bind(name, at: 1)
                guard try statement.step() else { return nil }
                return ChatSessionRecord(id: statement.int64(0), name: name, chatModel: statement.string(1))
            }
            if let found { return found }
            return try database.withStatement(
                "INSERT INTO chat_sessions (name, chat_model, created_at, updated_at) VALUES (?, ?, ?, ?) RETURNING id"
            ) { statement in
                try statement.bind(name, at: 1)
                try statement.bind(chatModel, at: 2)
                try statement.bind(now, at: 3)
                try statement.bind(now, at: 4)
                _ = try statement.step()
                return ChatSessionRecord(id: statement.int64(0), name: name, chatModel: chatModel)
            }
        }
    }

    /// The session's messages, oldest first.
    package func chatMessages(sessionID: Int64) throws -> [ChatMessageRecord] {
        try database.withStatement(
            "SELECT role, content, sources, interrupted FROM chat_messages WHERE session_id = ? ORDER BY id"
        ) { statement in
            try statement.bind(sessionID, at: 1)
            var messages: [ChatMessageRecord] = []
            while try statement.step() {
                let role = try ChatRole.decode(statement.string(0)) { reason in
                    StoreError.damaged(path: path, reason: reason, code: SQLITE_CORRUPT)
                }
                messages.append(
                    ChatMessageRecord(
                        role: role, content: statement.string(1), sources: statement.string(2),
                        interrupted: statement.int(3) != 0))
            }
            return messages
        }
    }

    /// Replaces the session's stored history with `messages` (after trimming or a `/reset`), in one transaction.
    package func replaceChatMessages(sessionID: Int64, with messages: [ChatMessageRecord]) throws {
        try inTransaction {
            try database.withStatement("DELETE FROM chat_messages WHERE session_id = ?") { statement in
                try statement.bind(sessionID, at: 1)
                try statement.run()
            }
            for message in messages { try insert(message, sessionID: sessionID) }
        }
    }

    /// Appends turns to the session, in one transaction, so a question is never stored without its answer.
    package func appendChatMessages(sessionID: Int64, _ messages: [ChatMessageRecord]) throws {
        try inTransaction {
            for message in messages { try insert(message, sessionID: sessionID) }
        }
    }

    /// Records the chat model a session now uses (after `/model`).
    package func setChatModel(sessionID: Int64, _ model: String) throws {
        try database.withStatement("UPDATE chat_sessions SET chat_model = ? WHERE id = ?") { statement in
            try statement.bind(model, at: 1)
            try statement.bind(sessionID, at: 2)
            try statement.run()
        }
    }

    /// Every session, the most recently used first.
    package func chatSessions() throws -> [ChatSessionSummary] {
        try database.withStatement(
            """
            SELECT s.name, s.chat_model, (SELECT count(*) FROM chat_messages m WHERE m.session_id = s.id), s.updated_at
            FROM chat_sessions s ORDER BY s.updated_at DESC, s.id DESC
            """
        ) { statement in
            var sessions: [ChatSessionSummary] = []
            while try statement.step() {
                sessions.append(
                    ChatSessionSummary(
                        name: statement.string(0), chatModel: statement.string(1), messages: statement.int(2),
                        updatedAt: statement.int64(3)))
            }
            return sessions
        }
    }

    /// The session called `name`, or nil.
    package func existingChatSession(named name: String) throws -> ChatSessionRecord? {
        try database.withStatement("SELECT id, chat_model FROM chat_sessions WHERE name = ?") { statement in
            try statement.bind(name, at: 1)
            guard try statement.step() else { return nil }
            return ChatSessionRecord(id: statement.int64(0), name: name, chatModel: statement.string(1))
        }
    }

    /// Gives a session another name; false when another session already has it.
    package func renameChatSession(sessionID: Int64, to name: String) throws -> Bool {
        try inTransaction {
            if let other = try existingChatSession(named: name) { return other.id == sessionID }
            try database.withStatement("UPDATE chat_sessions SET name = ? WHERE id = ?") { statement in
                try statement.bind(name, at: 1)
                try statement.bind(sessionID, at: 2)
                try statement.run()
            }
            return true
        }
    }

    /// Deletes a session and, by the foreign key's cascade, its messages.
    package func deleteChatSession(sessionID: Int64) throws {
        try inTransaction {
            try database.withStatement("DELETE FROM chat_messages WHERE session_id = ?") { statement in
                try statement.bind(sessionID, at: 1)
                try statement.run()
            }
            try database.withStatement("DELETE FROM chat_sessions WHERE id = ?") { statement in
                try statement.bind(sessionID, at: 1)
                try statement.run()
            }
        }
    }

    private func insert(_ message: ChatMessageRecord, sessionID: Int64) throws {
        let now = Int64(Date().timeIntervalSince1970)
        try database.withStatement(
            """
            INSERT INTO chat_messages (session_id, role, content, sources, interrupted, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """
        ) { statement in
            try statement.bind(sessionID, at: 1)
            try statement.bind(message.role.rawValue, at: 2)
            try statement.bind(message.content, at: 3)
            try statement.bind(message.sources, at: 4)
            try statement.bind(message.interrupted ? 1 : 0, at: 5)
            try statement.bind(now, at: 6)
            try statement.run()
        }
        try database.withStatement("UPDATE chat_sessions SET updated_at = ? WHERE id = ?") { statement in
            try statement.bind(now, at: 1)
            try statement.bind(sessionID, at: 2)
            try statement.run()
        }
    }
}
