import Testing
import TroveStore
import TroveTestSupport

@Suite("Chat history in the index")
struct ChatHistoryTests {
    @Test("a session is created once, keeps its turns in order, and survives reopening the index", arguments: StoreKind.available)
    func roundTrip(kind: StoreKind) async throws {
        let folder = try TemporaryDirectory()
        let path = try await kind.freshLocation(in: folder.path)
        do {
            let store = try IndexLocation(path).open(createIfMissing: true)
            let session = try store.chatSession(named: "work", chatModel: "llama3.2")
            try store.appendChatMessages(
                sessionID: session.id,
                [
                    ChatMessageRecord(role: .user, content: "how do we rotate keys?"),
                    ChatMessageRecord(role: .assistant, content: "Roll the key [1].", sources: "[1]", interrupted: true),
                ])
        }
        let reopened = try IndexLocation(path).open(createIfMissing: false)
        let session = try reopened.chatSession(named: "work", chatModel: "other")
        #expect(session.chatModel == "llama3.2")
        let messages = try reopened.chatMessages(sessionID: session.id)
        #expect(messages.map(\.role) == [.user, .assistant])
        #expect(messages[1].interrupted)
        #expect(messages[1].sources == "[1]")
        try reopened.replaceChatMessages(sessionID: session.id, with: [ChatMessageRecord(role: .assistant, content: "s")])
        #expect(try reopened.chatMessages(sessionID: session.id).map(\.content) == ["s"])
        let other = try reopened.chatSession(named: "home", chatModel: "qwen3")
        #expect(other.id != session.id)
        #expect(try reopened.chatMessages(sessionID: other.id).isEmpty)
    }
}
