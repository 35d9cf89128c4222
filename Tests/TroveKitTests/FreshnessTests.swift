import Foundation
import Ollama
import Testing
import TroveKit
import TroveStore
import TroveTestSupport
import TroveTestTraits

/// `TroveIndex.freshness()`: each folder against the disk by size and mtime, with `trove index`'s crawl rules, and
/// the mark a run that stopped early leaves.
@Suite("Status freshness: what changed on disk since the last run", .offCooperativePool)
struct FreshnessTests {
    func open(_ fixture: IndexingFixture) throws -> TroveIndex {
        try TroveIndex(
            opening: TroveConfiguration(
                location: IndexLocation(fixture.indexPath), ollama: OllamaClient(baseURL: fixture.server.baseURL),
                modelFolder: "/none"))
    }

    func only(_ fixture: IndexingFixture, budget: Duration = TroveIndex.freshnessBudget) async throws -> FolderFreshness
    {
        let folders = try await open(fixture).freshness(budget: budget)
        try #require(folders.count == 1)
        return folders[0]
    }

    @Test("new, changed (size or mtime alone) and gone are counted; ignored and hidden files are not")
    func counts() async throws {
        let fixture = try IndexingFixture()
        for number in 0..<5 { try fixture.write("note\(number).md", "# Note \(number)\n\ntext \(number)\n") }
        try fixture.write(".gitignore", "drafts/\n")
        _ = try await fixture.index()
        let fresh = try await only(fixture)
        #expect(fresh.isCurrent)
        #expect(fresh.new == 0 && fresh.changed == 0 && fresh.gone == 0 && !fresh.interrupted)
        let lastRun = try #require(fresh.lastRun)
        #expect(abs(lastRun - Int64(Date().timeIntervalSince1970)) < 60)

        try fixture.write("note0.md", "# Note 0\n\ntext 0, longer now\n")  // size
        let touched = fixture.notes + "/note1.md"  // mtime only, same bytes
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: touched)
        try FileManager.default.removeItem(atPath: fixture.notes + "/note2.md")
        try fixture.write("added.md", "# Added\n")
        try fixture.write("drafts/ignored.md", "# Ignored by .gitignore\n")
        try fixture.write(".hidden/secret.md", "# Hidden folder\n")
        try fixture.write("picture.png", "not text")  // not a kind trove indexes
        let stale = try await only(fixture)
        #expect(!stale.isCurrent)
        #expect(stale.new == 1)
        #expect(stale.changed == 2)
        #expect(stale.gone == 1)
        #expect(!stale.partial)

        _ = try await fixture.index()
        #expect(try await only(fixture).isCurrent)
    }

    @Test("a walk past its time budget reports lower bounds and leaves gone uncounted, never 'current'")
    func budget() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("a.md", "# A\n")
        _ = try await fixture.index()
        let spent = try await only(fixture, budget: .zero)
        #expect(spent.partial)
        #expect(spent.gone == nil)
        #expect(!spent.isCurrent)
    }

    @Test("a folder that is gone from disk is a problem, with all its documents gone")
    func missingFolder() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("a.md", "# A\n")
        try fixture.write("b.md", "# B\n")
        _ = try await fixture.index()
        try FileManager.default.removeItem(atPath: fixture.notes)
        let missing = try await only(fixture)
        #expect(missing.problem == "no such folder: \(fixture.notes)")
        #expect(missing.gone == 2)
        #expect(!missing.isCurrent)
    }

    @Test("a stop request leaves the mark with the files not indexed, until a complete run")
    func stopped() async throws {
        let fixture = try IndexingFixture()
        for number in 0..<10 { try fixture.write("note\(number).md", "# Note \(number)\n\ntext \(number)\n") }
        let stop = StopSignal()
        var options = IndexingFixture.options(fixture.notes, batch: 1, jobs: 1)
        options.stop = stop
        let summary = try await fixture.index(options) { event in
            if case .document = event { stop.stop() }
        }.summary
        try #require(summary.interrupted)
        let marked = try await only(fixture)
        #expect(marked.interrupted)
        #expect(marked.filesLeft == 10 - summary.newDocuments)
        #expect(marked.new == 10 - summary.newDocuments)
        #expect(!marked.isCurrent)
        _ = try await fixture.index()
        let done = try await only(fixture)
        #expect(done.isCurrent && !done.interrupted && done.filesLeft == 0)
    }

    @Test("the model server going away leaves the mark too")
    func serverGone() async throws {
        let fixture = try IndexingFixture()
        for number in 0..<10 { try fixture.write("note\(number).md", "# Note \(number)\n\ntext \(number)\n") }
        let server = fixture.server
        var written = 0
        await #expect(throws: OllamaError.self) {
            let options = IndexingFixture.options(fixture.notes, batch: 1, jobs: 1, retries: 0)
            _ = try await fixture.index(options) { event in
                if case .document = event {
                    written += 1
                    if written == 3 { server.stop() }
                }
            }
        }
        let marked = try await only(fixture)
        #expect(marked.interrupted)
        #expect(marked.filesLeft == 7)
        #expect(marked.new == 7)
    }

    @Test("run records live beside the manifest without being part of it, and survive its rewrite")
    func recordsBesideManifest() throws {
        let folder = try TemporaryDirectory()
        let store = try SQLiteStore(path: folder.path + "/i.sqlite", createIfMissing: true)
        try store.recordRun(root: "/notes", RunRecord(finishedAt: 5, interrupted: true, filesLeft: 3))
        #expect(try store.manifest() == nil)
        let manifest = IndexManifest(
            provider: .ollama, model: "m", modelDigest: nil, dimension: 2, chunkerVersion: 1, chunkerParameters: "p",
            queryPrefix: "", documentPrefix: "", probeVector: nil)
        try store.writeManifest(manifest)
        #expect(try store.manifest() == manifest)
        #expect(try store.runRecords() == ["/notes": RunRecord(finishedAt: 5, interrupted: true, filesLeft: 3)])
        try store.recordRun(root: "/notes", RunRecord(finishedAt: 6, interrupted: false))
        #expect(try store.runRecords() == ["/notes": RunRecord(finishedAt: 6, interrupted: false)])
    }
}
