import Foundation
import Ollama
import Testing
import TroveKit
import TroveStore
import TroveTestSupport
import TroveTestTraits

/// An index in a temporary folder, a fake Ollama, and a notes folder to index.
final class IndexingFixture {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory
    let notes: String
    var indexPath: String { folder.path + "/index.sqlite" }

    init(server: FakeOllamaServer? = nil) throws {
        self.server = try server ?? FakeOllamaServer()
        folder = try TemporaryDirectory()
        notes = folder.path + "/notes"
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
    }

    func write(_ path: String, _ text: String) throws {
        _ = try folder.write("notes/" + path, text)
    }

    func embedder(_ server: FakeOllamaServer? = nil) -> OllamaEmbedder {
        OllamaEmbedder(client: OllamaClient(baseURL: (server ?? self.server).baseURL), model: "nomic-embed-text")
    }

    /// Runs the indexer over the notes folder with fast retries; collects the reported lines.
    func index(
        _ options: IndexOptions? = nil, server: FakeOllamaServer? = nil, events: ((IndexEvent) -> Void)? = nil
    ) async throws -> (summary: IndexSummary, lines: [String]) {
        let store = try SQLiteStore(path: indexPath, createIfMissing: true)
        var lines: [String] = []
        let summary = try await Indexer(store: store, embedder: embedder(server)).run(
            options ?? Self.options(notes)
        ) { event in
            switch event {
            case .skipped(let line), .warning(let line): lines.append(line)
            default: break
            }
            events?(event)
        }
        return (summary, lines)
    }

    static func options(_ root: String, batch: Int = 64, jobs: Int = 2, retries: Int = 3) -> IndexOptions {
        IndexOptions(
            roots: [root], batchSize: batch, jobs: jobs,
            retry: RetryPolicy(retries: retries, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(10)))
    }

    func rows() throws -> [ContentRow] {
        try SQLiteStore(path: indexPath, createIfMissing: false).contentRows()
    }

    /// A note with three sections, each its own chunk.
    static func threeSections(_ second: String = "Bicycles need oiled chains and pumped tyres.") -> String {
        """
        # Kayaks

        Kayaks are paddled from a seated position with a double blade.

        # Bicycles

        \(second)

        # Gardens

        Tomatoes want sun, water at the roots, and a stake.
        """
    }
}

@Suite("Incremental indexing reuses what it already embedded", .offCooperativePool)
struct IncrementalIndexingTests {
    @Test("editing one section re-embeds only that section's chunk and reuses the others")
    func editReusesUnchangedChunks() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("a.md", IndexingFixture.threeSections())
        let first = try await fixture.index().summary
        #expect(first.newDocuments == 1)
        #expect(first.chunksEmbedded == 3)
        #expect(first.chunksReused == 0)

        let before = fixture.server.embeddedInputCount
        try fixture.write("a.md", IndexingFixture.threeSections("Bicycles need brakes that work in the rain."))
        let edit = try await fixture.index().summary
        #expect(edit.changedDocuments == 1)
        #expect(edit.chunksEmbedded == 1)
        #expect(edit.chunksReused == 2)
        #expect(fixture.server.embeddedInputCount - before == 1)
    }

    @Test("a renamed or moved file, and a copy, embed nothing: their vectors are reused")
    func moveAndCopyReuse() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("a.md", IndexingFixture.threeSections())
        _ = try await fixture.index()
        let before = fixture.server.embeddedInputCount

        try FileManager.default.createDirectory(atPath: fixture.notes + "/moved", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: fixture.notes + "/a.md", toPath: fixture.notes + "/moved/b.md")
        try fixture.write("copy.md", IndexingFixture.threeSections())
        let moved = try await fixture.index().summary
        #expect(moved.newDocuments == 2)
        #expect(moved.removedDocuments == 1)
        #expect(moved.chunksEmbedded == 0)
        #expect(moved.chunksReused == 6)
        #expect(fixture.server.embeddedInputCount == before)
        let paths = Set(try fixture.rows().map(\.path))
        #expect(paths == ["moved/b.md", "copy.md"])
    }

    @Test("duplicate files in one run embed their text once")
    func duplicatesInOneRun() async throws {
        let fixture = try IndexingFixture()
        for name in ["one.md", "two.md", "three.md"] { try fixture.write(name, IndexingFixture.threeSections()) }
        let run = try await fixture.index().summary
        #expect(run.newDocuments == 3)
        #expect(run.chunksEmbedded == 3)
        #expect(run.chunksReused == 6)
        #expect(fixture.server.embeddedInputCount == 3 + 1, "three texts and the fingerprint's probe")
    }

    @Test("a touched file (new mtime, same bytes) is counted unchanged and embeds nothing")
    func touchedFile() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("a.md", IndexingFixture.threeSections())
        _ = try await fixture.index()
        let later = Date().addingTimeInterval(60)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: fixture.notes + "/a.md")
        let run = try await fixture.index().summary
        #expect(run.unchangedDocuments == 1)
        #expect(run.chunksEmbedded == 0)
        let again = try await fixture.index().summary
        #expect(again.unchangedDocuments == 1)
    }

    @Test("many files with several requests in flight give exactly the index one request at a time gives")
    func concurrentEqualsSequential() async throws {
        let fixture = try IndexingFixture()
        for number in 0..<40 {
            try fixture.write(
                "n\(number / 10)/note\(number).md",
                "# Note \(number)\n\nword\(number) alpha \(number * 7)\n\n## More\n\nbeta gamma \(number % 5)\n")
        }
        let parallel = try await fixture.index(IndexingFixture.options(fixture.notes, batch: 3, jobs: 4)).summary
        let other = try IndexingFixture()
        try FileManager.default.removeItem(atPath: other.notes)
        try FileManager.default.copyItem(atPath: fixture.notes, toPath: other.notes)
        _ = try await other.index(IndexingFixture.options(other.notes, batch: 64, jobs: 1))
        #expect(parallel.newDocuments == 40)
        let strip = { (rows: [ContentRow]) in
            rows.map { row -> ContentRow in
                var row = row
                row.root = ""
                return row
            }
        }
        #expect(strip(try fixture.rows()) == strip(try other.rows()))
        #expect(fixture.server.embedBatchSizes.allSatisfy { $0 <= 3 })
    }

    @Test("the summary counts skipped files by reason")
    func skippedReasons() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("good.md", "# Good\n\nwords\n")
        _ = try fixture.folder.write("notes/blob.txt", data: Data([0x41, 0x00, 0x42]))
        let (summary, lines) = try await fixture.index()
        #expect(summary.skippedFiles == 1)
        #expect(summary.skippedReasons == ["binary": 1])
        #expect(lines == ["skipped blob.txt: binary file"])
    }
}

@Suite("Indexing through a failing Ollama")
struct FaultToleranceTests {
    @Test("a briefly busy or failing server is retried and the run succeeds, counting the retries")
    func transientFailuresRetried() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("a.md", IndexingFixture.threeSections())
        fixture.server.failNextEmbeds(2, status: 503, message: "server busy, please try again")
        let first = try await fixture.index().summary
        #expect(first.newDocuments == 1)
        #expect(first.retries == 2)
        try fixture.write("b.md", "# B\n\nanother note\n")
        fixture.server.failNextEmbeds(1, status: 500, message: "runner restarted")
        let second = try await fixture.index().summary
        #expect(second.newDocuments == 1)
        #expect(second.retries == 1)
    }

    @Test("an input the model cannot embed is isolated: its file is skipped and reported, the rest indexed")
    func poisonedInputIsolated() async throws {
        let fixture = try IndexingFixture()
        for number in 0..<12 { try fixture.write("note\(number).md", "# Note \(number)\n\nplain text \(number)\n") }
        try fixture.write("bad.md", "# Bad\n\nthis one holds POISON for the runner\n")
        fixture.server.poisonedText = "POISON"
        let (summary, lines) = try await fixture.index()
        #expect(summary.newDocuments == 12)
        #expect(summary.skippedReasons == ["not embeddable": 1])
        #expect(
            lines == ["skipped bad.md: the model could not embed lines 1-3 (llama runner failed to process the input)"])
        #expect(!(try fixture.rows().contains { $0.path == "bad.md" }))

        // Fixed upstream: the next run picks the file up.
        fixture.server.poisonedText = nil
        let again = try await fixture.index().summary
        #expect(again.newDocuments == 1)
        #expect(again.unchangedDocuments == 12)
    }

    @Test("a server that fails every input stops the run instead of skipping everything")
    func brokenServerStops() async throws {
        let fixture = try IndexingFixture()
        for number in 0..<8 { try fixture.write("note\(number).md", "# N\n\ncommon POISON \(number)\n") }
        fixture.server.poisonedText = "POISON"
        await #expect(throws: OllamaError.self) { _ = try await fixture.index() }
    }

    @Test("Ollama going away mid-run stops with a clear message; finished work is saved and a rerun completes it")
    func ollamaGoesAway() async throws {
        let fixture = try IndexingFixture()
        for number in 0..<10 { try fixture.write("note\(number).md", "# Note \(number)\n\ntext \(number)\n") }
        let server = fixture.server
        var written = 0
        let url = server.baseURL.absoluteString
        do {
            _ = try await fixture.index(IndexingFixture.options(fixture.notes, batch: 1, jobs: 1, retries: 2)) { event in
                if case .document = event {
                    written += 1
                    if written == 3 { server.stop() }
                }
            }
            Issue.record("the run should have failed")
        } catch let error as OllamaError {
            #expect(error.kind == .unreachable)
            #expect(
                error.message
                    == "cannot reach Ollama at \(url) — is it running? (ollama serve); indexing stopped with 3 new or "
                    + "changed documents saved — run trove index again to resume")
        }
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: false)
        #expect(try store.integrityCheck() == "ok")
        #expect(try store.halfWrittenDocuments().isEmpty)
        #expect(try store.statistics().documents == 3)

        let revived = try FakeOllamaServer()
        let rerun = try await fixture.index(server: revived).summary
        #expect(rerun.newDocuments == 7)
        #expect(rerun.unchangedDocuments == 3)
    }

    @Test("a stop request finishes the current transaction, reports interrupted, and a rerun completes")
    func stopSignal() async throws {
        let fixture = try IndexingFixture()
        for number in 0..<10 { try fixture.write("note\(number).md", "# Note \(number)\n\ntext \(number)\n") }
        let stop = StopSignal()
        var options = IndexingFixture.options(fixture.notes, batch: 1, jobs: 2)
        options.stop = stop
        let summary = try await fixture.index(options) { event in
            if case .document = event { stop.stop() }
        }.summary
        #expect(summary.interrupted)
        #expect(summary.newDocuments >= 1 && summary.newDocuments < 10)
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: false)
        #expect(try store.statistics().documents == summary.newDocuments)
        let rest = try await fixture.index().summary
        #expect(!rest.interrupted)
        #expect(rest.newDocuments + summary.newDocuments == 10)
    }
}

@Suite("The index fingerprint and re-embedding", .offCooperativePool)
struct FingerprintTests {
    @Test("a model re-pulled with other weights is detected by digest, and --reembed rebuilds its vectors")
    func digestChangeAndReembed() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("a.md", IndexingFixture.threeSections())
        try fixture.write("b.md", "# B\n\nanother note\n")
        _ = try await fixture.index()
        let oldDigest = try SQLiteStore(path: fixture.indexPath, createIfMissing: false).manifest()?.modelDigest
        let newDigest = String(repeating: "ab", count: 32)
        fixture.server.digestOverride = newDigest
        do {
            _ = try await fixture.index()
            Issue.record("a changed digest must be refused")
        } catch let error as IndexError {
            #expect(error.code == .digestMismatch)
            #expect(
                error.message
                    == "model 'nomic-embed-text' changed since index \(fixture.indexPath) was built (digest "
                    + "\(oldDigest?.prefix(12) ?? "") → abababababab, after an ollama pull?) — run: trove index --reembed")
        }
        var options = IndexingFixture.options(fixture.notes)
        options.reembed = true
        let before = fixture.server.embeddedInputCount
        let rebuilt = try await fixture.index(options).summary
        #expect(rebuilt.chunksReembedded == 4)
        // The four chunks and the probe text the new fingerprint records.
        #expect(fixture.server.embeddedInputCount - before == 5)
        #expect(rebuilt.unchangedDocuments == 2)
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: false)
        #expect(try store.manifest()?.modelDigest == newDigest)
        #expect(try store.statistics().vectors == 4)
        #expect(try store.integrityCheck() == "ok")
        let after = try await fixture.index().summary
        #expect(after.unchangedDocuments == 2)
        #expect(after.chunksEmbedded == 0)
    }
}

@Suite("One writer at a time")
struct WriterLockTests {
    @Test("indexing while another writer holds the index's lock is refused, naming it; nothing is written")
    func secondWriter() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("a.md", "# A\n\na note\n")
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: true)
        let lock = try store.lockForWriting()
        do {
            _ = try await fixture.index()
            Issue.record("a second writer must be refused")
        } catch let error as StoreError {
            #expect(error.code == .locked)
            #expect(error.message.hasPrefix("another trove process (pid \(getpid())) is writing index "))
        }
        #expect(try store.manifest() == nil)
        lock.release()
        #expect(try await fixture.index().summary.newDocuments == 1)
    }
}

@Suite("Files that change under the indexer")
struct ChangingFilesTests {
    @Test("a file that vanishes between the crawl and its reading is skipped and reported, not fatal")
    func vanishingFile() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("stays.md", "# Stays\n\nhere\n")
        try fixture.write("vanishes.md", "# Gone\n\nsoon\n")
        let notes = fixture.notes
        let (summary, lines) = try await fixture.index { event in
            if case .crawled = event { try? FileManager.default.removeItem(atPath: notes + "/vanishes.md") }
        }
        #expect(summary.newDocuments == 1)
        #expect(summary.skippedReasons == ["unreadable": 1])
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("skipped vanishes.md: cannot read (") == true)
    }

    @Test("a file rewritten between the crawl and its reading is picked up again by the next run")
    func changingFile() async throws {
        let fixture = try IndexingFixture()
        try fixture.write("a.md", "# A\n\nfirst version\n")
        let notes = fixture.notes
        _ = try await fixture.index { event in
            if case .crawled = event {
                try? "# A\n\nsecond, longer version of the text\n".write(
                    toFile: notes + "/a.md", atomically: false, encoding: .utf8)
            }
        }
        // The stored stat is the crawl's, older than the content: the next run looks again and stays consistent.
        let again = try await fixture.index().summary
        #expect(again.unchangedDocuments == 1)
        #expect(again.chunksEmbedded == 0)
        #expect(try fixture.rows().first?.text.contains("second, longer version") == true)
    }
}
