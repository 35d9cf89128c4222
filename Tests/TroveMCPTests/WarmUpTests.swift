import Foundation
import Ollama
import Testing
import TroveKit
import TroveMCP
import TroveTestSupport
import TroveTestTraits

/// `trove mcp` and `trove web` warm their index at start; one started before the first `trove index` warms it when a
/// call first opens it, so its default searches scan as any warm process's do (the int8 copy above the threshold).
@Suite("Warming an index that appears after the server started", .offCooperativePool)
struct WarmUpTests {
    @Test("the first call that opens the index warms it: its automatic searches build the int8 copy")
    func lateIndex() async throws {
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text")])
        let folder = try TemporaryDirectory()
        try folder.write("notes/ssh.md", "# SSH\n\nConnect through the bastion host with ssh -J bastion.\n")
        let configuration = Rig.configuration(server: server, indexPath: folder.path + "/i.sqlite")
        let tools = MCPTools(.init(configuration: configuration, chatModel: "llama3.2", chatModelChosen: false))
        await tools.warmUp()  // no index yet: nothing to load, and no error

        let created = try TroveIndex(creating: configuration, embedder: EmbedderChoice(provider: .ollama))
        for try await _ in try await created.index(IndexOptions(roots: [folder.path + "/notes"])) {}
        let index = try tools.index()
        await index.scanInt8(fromFloats: 1)
        // The warm-up runs beside the call that opened the index; a warm index's next automatic search holds the copy.
        var warmed = false
        let deadline = ContinuousClock.now + .seconds(120)
        while !warmed, ContinuousClock.now < deadline {
            #expect(!(try await index.search(SearchRequest(query: "bastion", mode: .vector))).isEmpty)
            warmed = await index.holdsInt8Copy()
            if !warmed { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(warmed, "the index opened after warmUp was never warmed")
    }
}
