import Foundation
import Ollama
import Testing
import TroveKit
import TroveTestSupport
import TroveTestTraits

@testable import TroveStore

@Suite(
    "A chunker change chunks the index again from its own text: no extraction, only changed passages embedded",
    .offCooperativePool, .enabled(if: extractionUnavailable == nil, "\(extractionUnavailable ?? "")"))
struct RechunkTests {
    /// A chunk as compared: lines, heading, text, locator.
    struct Row: Equatable {
        var lines: ClosedRange<Int>
        var heading: String
        var text: String
        var locator: StoredLocator?
    }

    let paths = ["pages.pdf", "types.html", "note.md"]

    /// A folder with a PDF of known pages, a real web page and a note with one long line.
    func notes(in folder: TemporaryDirectory) throws -> String {
        let notes = folder.path + "/notes"
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
        for (from, to) in [("pdf/pages.pdf", "pages.pdf"), ("html/datatype3.html", "types.html")] {
            try FileManager.default.copyItem(atPath: extractionFixtures + "/" + from, toPath: notes + "/" + to)
        }
        let long = (1...80).map { "Sentence \($0) of one long paragraph about storage classes." }.joined(separator: " ")
        try "# Note\n\nA short opening.\n\n\(long)\n".write(toFile: notes + "/note.md", atomically: true, encoding: .utf8)
        return notes
    }

    func index(_ store: any IndexBackend, _ notes: String, server: FakeOllamaServer, maxTokens: Int, worker: [String])
        async throws -> IndexSummary
    {
        var options = IndexingFixture.options(notes)
        options.maxTokens = maxTokens
        let embedder = OllamaEmbedder(client: OllamaClient(baseURL: server.baseURL), model: "nomic-embed-text")
        return try await Indexer(store: store, embedder: embedder, extractionWorker: worker).run(options) { _ in }
    }

    func rows(_ store: any IndexBackend, _ notes: String) throws -> [String: [Row]] {
        var rows: [String: [Row]] = [:]
        for path in paths {
            let text = try #require(try store.documentText(rootPath: notes, path: path))
            rows[path] = text.chunks.map {
                Row(lines: $0.startLine...$0.endLine, heading: $0.heading, text: $0.text, locator: $0.locator)
            }
        }
        return rows
    }

    @Test("chunked anew with a smaller budget: the same chunks as a fresh index, the worker never started", arguments: StoreKind.available)
    func smallerBudget(kind: StoreKind) async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let notes = try notes(in: folder)
        let worker = [builtProduct("trove"), "extract-worker"]
        let store = try IndexLocation(try await kind.freshLocation(in: folder.path)).open(createIfMissing: true)
        let first = try await index(store, notes, server: server, maxTokens: 400, worker: worker)
        #expect(first.newDocuments == 3 && first.skippedFiles == 0)
        let before = try rows(store, notes)

        // A worker that cannot start: any extraction would be a named failure in the summary.
        let second = try await index(store, notes, server: server, maxTokens: 40, worker: ["/bin/false"])
        #expect(second.extractionFailures.isEmpty && second.skippedFiles == 0)
        #expect(second.unchangedDocuments == 3 && second.changedDocuments == 0)
        let after = try rows(store, notes)
        // The PDF and the web page are cut finer from their stored structure; the note, one heading and two
        // paragraphs each within the model's context, stays as it was (and is not written again).
        let changed = paths.filter { before[$0] != after[$0] }
        #expect(changed == ["pages.pdf", "types.html"], "\(changed)")
        #expect(second.rechunkedDocuments == 2)
        let total = after.values.map(\.count).reduce(0, +)
        #expect(total > before.values.map(\.count).reduce(0, +))
        // Passages whose text did not change keep their vectors: fewer embedded than stored.
        #expect(second.chunksEmbedded < total)
        #expect(try store.manifest()?.chunkerParameters.hasPrefix("maxTokens=40,") == true)

        // The chunks follow the new rules: those of a fresh index made with the same budget by the real worker.
        let fresh = try SQLiteStore(path: folder.path + "/fresh.sqlite", createIfMissing: true)
        _ = try await index(fresh, notes, server: server, maxTokens: 40, worker: worker)
        #expect(after == (try rows(fresh, notes)))
        #expect(after["pages.pdf"]?.contains { $0.locator?.first == 4 } == true)

        // Done once: the next run finds nothing to chunk again.
        let third = try await index(store, notes, server: server, maxTokens: 40, worker: ["/bin/false"])
        #expect(third.rechunkedDocuments == 0 && third.chunksEmbedded == 0 && third.unchangedDocuments == 3)
    }
}
