/// The conversations `trove ask --session` keeps beside the index.
package protocol ChatHistoryStore: AnyObject {
    /// The session called `name`, created (with `chatModel`) when it does not exist yet.
    func chatSession(named name: String, chatModel: String) throws -> ChatSessionRecord
    /// The session's messages, oldest first.
    func chatMessages(sessionID: Int64) throws -> [ChatMessageRecord]
    /// Replaces the session's stored history with `messages`, in one transaction.
    func replaceChatMessages(sessionID: Int64, with messages: [ChatMessageRecord]) throws
    /// Appends turns to the session, in one transaction.
    func appendChatMessages(sessionID: Int64, _ messages: [ChatMessageRecord]) throws
    /// Records the chat model a session now uses.
    func setChatModel(sessionID: Int64, _ model: String) throws
    /// Every session, the most recently used first.
    func chatSessions() throws -> [ChatSessionSummary]
    /// The session called `name`, or nil; never creates one.
    func existingChatSession(named name: String) throws -> ChatSessionRecord?
    /// Gives a session another name; false when another session already has it.
    func renameChatSession(sessionID: Int64, to name: String) throws -> Bool
    /// Deletes a session and its messages.
    func deleteChatSession(sessionID: Int64) throws
}
