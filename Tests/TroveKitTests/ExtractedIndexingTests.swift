import Foundation
import Testing
import TroveKit
import TroveStore
import TroveTestSupport
import TroveTestTraits

/// The committed fixtures other helpers made or collected (PDFs by Scripts/make-test-pdfs.py, sqlite3-doc HTML).
let extractionFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("TroveExtractTests/Fixtures").path

/// Why the extraction tests cannot run here, or nil: they start the built `trove` as the worker, and PDFs need
/// poppler-utils.
let extractionUnavailable: String? = {
    if !FileManager.default.isExecutableFile(atPath: builtProduct("trove")) { return "needs the built trove" }
    if !FileManager.default.isExecutableFile(atPath: "/usr/bin/pdftotext") {
        return "needs pdftotext: apt-get install poppler-utils poppler-data (Scripts/test.sh does it)"
    }
    return nil
}()

@Suite(
    "Files of extracted formats go through the worker into the index",
    .offCooperativePool, .enabled(if: extractionUnavailable == nil, "\(extractionUnavailable ?? "")"))
struct ExtractedIndexingTests {
    /// A notes folder with a PDF of known pages, a real HTML page, an encrypted PDF, random bytes named .pdf and a
    /// Markdown note.
    func fixture() throws -> IndexingFixture {
        let fixture = try IndexingFixture()
        let files = FileManager.default
        for (from, to) in [
            ("pdf/pages.pdf", "pages.pdf"), ("pdf/encrypted.pdf", "locked.pdf"), ("html/datatype3.html", "types.html"),
        ] {
            try files.copyItem(atPath: extractionFixtures + "/" + from, toPath: fixture.notes + "/" + to)
        }
        var random = SplitMix64(seed: 27)
        try Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            .write(to: URL(fileURLWithPath: fixture.notes + "/random.pdf"))
        try fixture.write("plain.md", "# Plain\n\nA note about figs.")
        return fixture
    }

    /// The indexer with the worker started from `worker` (default: the built trove).
    func index(
        _ fixture: IndexingFixture, worker: [String] = [builtProduct("trove"), "extract-worker"],
        _ change: (inout IndexOptions) -> Void = { _ in }
    ) async throws -> (summary: IndexSummary, lines: [String]) {
        var options = IndexingFixture.options(fixture.notes)
        change(&options)
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: true)
        var lines: [String] = []
        let summary = try await Indexer(store: store, embedder: fixture.embedder(), extractionWorker: worker).run(
            options
        ) { event in
            if case .skipped(let line) = event { lines.append(line) }
        }
        return (summary, lines)
    }

    @Test("pages carry their numbers, HTML is text not markup, and each failure is one named line that never stops the run")
    func firstRun() async throws {
        let fixture = try fixture()
        let (summary, lines) = try await index(fixture)
        #expect(summary.newDocuments == 3)
        #expect(summary.skippedFiles == 2)
        #expect(summary.extractionFailures == ["pdf": ["encrypted": 1, "damaged": 1]])
        #expect(lines.sorted().map { $0.prefix(32) } == ["skipped locked.pdf: encrypted — ", "skipped random.pdf: damaged — no"])
        let rows = try fixture.rows()
        let pages = rows.filter { $0.path == "pages.pdf" }
        // The page-4 text (page 3 is blank) is cited as page 4; the `#` line is text, not a heading.
        let dates = try #require(pages.first { $0.text.contains("dates and errors") })
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: false)
        let chunk = try #require(try store.chunks(ids: try store.chunkIDs(inDocuments: try store.searchableDocuments().map(\.id))).values.first { $0.text == dates.text })
        #expect(chunk.locator == StoredLocator(kind: "page", first: 4, last: 4, approximate: false))
        #expect(pages.contains { $0.text.contains("# this line starts with a hash") && !$0.heading.contains("this line") })
        let html = rows.filter { $0.path == "types.html" }
        #expect(!html.isEmpty)
        #expect(html.allSatisfy { !$0.text.contains("</") && !$0.text.contains("<p") && !$0.text.contains("&lt;") })
    }

    @Test("an unchanged failing file is remembered and not tried again until --retry-failed")
    func failuresRemembered() async throws {
        let fixture = try fixture()
        _ = try await index(fixture)
        let again = try await index(fixture, worker: ["/bin/false"])
        #expect(again.lines.isEmpty)
        #expect(again.summary.failuresRemembered == 2)
        #expect(again.summary.unchangedDocuments == 3)
        let retried = try await index(fixture) { $0.retryFailed = true }
        #expect(retried.lines.count == 2)
        #expect(retried.summary.failuresRemembered == 0)
    }

    @Test("a copy and a move of an extracted file cost no extraction and no embedding; --reextract reads it again")
    func copyAndMoveReuse() async throws {
        let fixture = try fixture()
        _ = try await index(fixture)
        let before = try fixture.rows().filter { $0.path == "pages.pdf" }
        try FileManager.default.copyItem(atPath: fixture.notes + "/pages.pdf", toPath: fixture.notes + "/copy.pdf")
        try FileManager.default.moveItem(atPath: fixture.notes + "/types.html", toPath: fixture.notes + "/moved.html")
        // A worker that cannot start: anything extracted would fail.
        let (summary, lines) = try await index(fixture, worker: ["/bin/false"])
        #expect(lines.isEmpty)
        #expect(summary.newDocuments == 2)
        #expect(summary.removedDocuments == 1)
        #expect(summary.chunksEmbedded == 0)
        let copy = try fixture.rows().filter { $0.path == "copy.pdf" }
        #expect(copy.map(\.text) == before.map(\.text))
        #expect(copy.map(\.vector) == before.map(\.vector))
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: false)
        let copied = try #require(try store.documentText(rootPath: fixture.notes, path: "copy.pdf"))
        #expect(copied.chunks.contains { $0.locator?.first == 4 })
        let forced = try await index(fixture, worker: ["/bin/false"]) { $0.reextract = true }
        #expect(forced.summary.extractionFailures["pdf"]?["crashed"] == 2)
        #expect(forced.summary.extractionFailures["html"]?["crashed"] == 1)
        // A file that cannot be read now keeps its indexed version.
        #expect(try fixture.rows().contains { $0.path == "copy.pdf" })
    }
}

/// A plain PDF of one text line per page (Helvetica, uncompressed streams, an exact xref): enough for pdftotext, and
/// small enough to vary page by page in a test.
func simplePDF(pages: [String]) -> Data {
    var objects: [String] = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [\((0..<pages.count).map { "\(4 + 2 * $0) 0 R" }.joined(separator: " "))] "
            + "/Count \(pages.count) >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for (index, text) in pages.enumerated() {
        let stream = "BT /F1 12 Tf 72 720 Td (\(text)) Tj ET"
        objects.append(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                + "/Contents \(5 + 2 * index) 0 R >>")
        objects.append("<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream")
    }
    var pdf = "%PDF-1.4\n"
    var offsets: [Int] = []
    for (number, body) in objects.enumerated() {
        offsets.append(pdf.utf8.count)
        pdf += "\(number + 1) 0 obj\n\(body)\nendobj\n"
    }
    let xref = pdf.utf8.count
    pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
    for offset in offsets { pdf += String(format: "%010d 00000 n \n", offset) }
    pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
    return Data(pdf.utf8)
}

@Suite(
    "An edited PDF re-embeds only its changed pages",
    .offCooperativePool, .enabled(if: extractionUnavailable == nil, "\(extractionUnavailable ?? "")"))
struct PageEditTests {
    @Test("an edit on one page of a 30-page PDF embeds that page's passage alone")
    func onePageEdited() async throws {
        let fixture = try IndexingFixture()
        // Over ten words a page: fewer is read as a scan with a stray text layer.
        let pages = (1...30).map { "Page \($0) describes harbour number \($0 * 7), its cranes, its quays and its ships." }
        let file = URL(fileURLWithPath: fixture.notes + "/ledger.pdf")
        try simplePDF(pages: pages).write(to: file)
        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: true)
        let indexer = Indexer(
            store: store, embedder: fixture.embedder(), extractionWorker: [builtProduct("trove"), "extract-worker"])
        let first = try await indexer.run(IndexingFixture.options(fixture.notes)) { _ in }
        #expect(first.newDocuments == 1)
        #expect(first.chunksEmbedded == 30)
        var edited = pages
        edited[6] = "Page 7 now describes a lighthouse instead, its lamp, its keeper and its rocks."
        try simplePDF(pages: edited).write(to: file)
        let second = try await indexer.run(IndexingFixture.options(fixture.notes)) { _ in }
        #expect(second.changedDocuments == 1)
        #expect(second.chunksEmbedded == 1)
        #expect(second.chunksReused == 29)
        let rows = try fixture.rows()
        #expect(rows.count == 30)
        #expect(rows.contains { $0.text.hasPrefix("Page 7 now describes a lighthouse") })
    }
}
