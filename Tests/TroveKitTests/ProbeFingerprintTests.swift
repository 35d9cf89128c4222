import Foundation
import Ollama
import Testing
import TroveStore
import TroveTestSupport

@testable import TroveKit

/// Which embedders may add to an index: decided by the probe vector it stores, not by a list of names.
@Suite("The probe vector in the fingerprint")
struct ProbeFingerprintTests {
    /// A fake Ollama serving `nomic-embed-text`, a renamed copy of it (the same vectors) and another model of the
    /// same length whose vectors differ.
    static func server() throws -> FakeOllamaServer {
        var other = FakeOllamaServer.Model.embedding("other-embed", dimension: 64)
        other.space = 7
        return try FakeOllamaServer(models: [
            .embedding("nomic-embed-text", dimension: 64), .embedding("nomic-copy", dimension: 64), other,
        ])
    }

    func run(_ fixture: IndexingFixture, model: String) async throws -> IndexSummary {
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: true)
        let embedder = OllamaEmbedder(client: OllamaClient(baseURL: fixture.server.baseURL), model: model)
        return try await Indexer(store: store, embedder: embedder).run(IndexingFixture.options(fixture.notes)) { _ in }
    }

    func manifest(_ fixture: IndexingFixture) throws -> IndexManifest? {
        try SQLiteStore(path: fixture.indexPath, createIfMissing: false).manifest()
    }

    @Test("a new index stores the unit-length probe vector of its embedder, and reads it back exactly")
    func stored() async throws {
        let fixture = try IndexingFixture(server: Self.server())
        try fixture.write("a.md", IndexingFixture.threeSections())
        _ = try await run(fixture, model: "nomic-embed-text")
        let probe = try #require(try manifest(fixture)?.probeVector)
        let expected = FakeOllamaServer.embedding(for: Fingerprint.probeText, dimension: 64)
        #expect(try #require(Fingerprint.agreement(probe, expected)) > 0.99999)
        #expect(abs(probe.reduce(0) { $0 + $1 * $1 } - 1) < 1e-5)
    }

    @Test("another model whose probe vector agrees may refresh the index; the manifest keeps the original")
    func agreeingModelAccepted() async throws {
        let fixture = try IndexingFixture(server: Self.server())
        try fixture.write("a.md", IndexingFixture.threeSections())
        _ = try await run(fixture, model: "nomic-embed-text")
        try fixture.write("b.md", "# B\n\nanother note about keys\n")
        let summary = try await run(fixture, model: "nomic-copy")
        #expect(summary.newDocuments == 1)
        #expect(try manifest(fixture)?.model == "nomic-embed-text")
    }

    @Test("a model whose probe vector differs is refused, naming both sides and the cosine")
    func disagreeingModelRefused() async throws {
        let fixture = try IndexingFixture(server: Self.server())
        try fixture.write("a.md", IndexingFixture.threeSections())
        _ = try await run(fixture, model: "nomic-embed-text")
        let error = try await #require(throws: IndexError.self) { try await run(fixture, model: "other-embed") }
        #expect(error.code == .modelMismatch)
        #expect(
            error.message.hasPrefix(
                "index \(fixture.indexPath) was built with ollama model 'nomic-embed-text', not ollama model "
                    + "'other-embed': their probe vectors agree at cosine "),
            "\(error.message)")
        #expect(
            error.message.hasSuffix(
                ", below 0.999, so their vectors do not compare — use --provider ollama --model nomic-embed-text, "
                    + "or --index NEW.sqlite for a new index"))
    }

    @Test("an index made before probe vectors accepts only its own embedder, which records one (the migration)")
    func migration() async throws {
        let fixture = try IndexingFixture(server: Self.server())
        try fixture.write("a.md", IndexingFixture.threeSections())
        _ = try await run(fixture, model: "nomic-embed-text")
        // As an older trove left it: the same manifest without the probe.
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: false)
        var old = try #require(try store.manifest())
        old.probeVector = nil
        try store.inTransaction { try store.writeManifest(old) }
        #expect(try manifest(fixture)?.probeVector == nil)

        let error = try await #require(throws: IndexError.self) { try await run(fixture, model: "nomic-copy") }
        #expect(
            error.message
                == "index \(fixture.indexPath) was built with ollama model 'nomic-embed-text', not ollama model "
                + "'nomic-copy', and it records no probe vector to compare them with (it predates them) — run trove "
                + "index once with --provider ollama --model nomic-embed-text to record one, or use --index "
                + "NEW.sqlite for a new index")

        _ = try await run(fixture, model: "nomic-embed-text")
        let recorded = try #require(try manifest(fixture)?.probeVector)
        let expected = FakeOllamaServer.embedding(for: Fingerprint.probeText, dimension: 64)
        #expect(try #require(Fingerprint.agreement(recorded, expected)) > 0.99999)
        _ = try await run(fixture, model: "nomic-copy")
    }

    @Test("the probe text survives the manifest's text encoding bit for bit", arguments: [[Float(0.5), -0.25, 1e-30, 3.4e38], [1]])
    func encoding(vector: [Float]) {
        #expect(ProbeVectorText.decode(ProbeVectorText.encode(vector)) == vector)
        #expect(ProbeVectorText.decode("not base64!") == nil)
        #expect(ProbeVectorText.decode("AAA=") == nil, "two bytes are not a float32")
    }
}
