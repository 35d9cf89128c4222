import Testing
import TroveTestSupport

@testable import TroveStore

@Suite("closed sets are decoded once, at the store's edge")
struct StoreEdgeTests {
    @Test("a stored chat role other than user or assistant (the schema's unused summary) is a damaged index")
    func unknownRole() throws {
        let folder = try TemporaryDirectory()
        let store = try SQLiteStore(path: folder.path + "/i.sqlite", createIfMissing: true)
        let session = try store.chatSession(named: "s", chatModel: "m")
        try store.database.execute(
            "INSERT INTO chat_messages (session_id, role, content, sources, interrupted, created_at) "
                + "VALUES (\(session.id), 'summary', 's', '[]', 0, 0)")
        #expect(throws: StoreError.self) { try store.chatMessages(sessionID: session.id) }
        do { _ = try store.chatMessages(sessionID: session.id) } catch {
            #expect("\(error)".contains("a chat message has the role \"summary\", not user or assistant"))
        }
    }

    @Test("a manifest naming an unknown provider is a damaged index, with the providers it may name")
    func unknownProvider() throws {
        let folder = try TemporaryDirectory()
        let store = try SQLiteStore(path: folder.path + "/i.sqlite", createIfMissing: true)
        try store.writeManifest(sampleManifest(dimension: 4))
        try store.database.execute("UPDATE manifest SET value = 'tfidf' WHERE key = 'embedder'")
        do {
            _ = try store.manifest()
            Issue.record("an unknown provider was read")
        } catch {
            #expect("\(error)".contains("its manifest's embedder is \"tfidf\", not ollama, openai or builtin"))
        }
    }
}
