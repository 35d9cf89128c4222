import Foundation
import Testing
import TroveKit
import TroveStore
import TroveTestSupport
import TroveTestTraits

/// The zip containers' committed fixtures (python-docx, python-pptx, odfpy; see their SOURCES.md).
private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("TroveExtractTests/Fixtures").path

@Suite(
    "Word, OpenDocument and PowerPoint files go through the worker into the index beside hostile ones",
    .offCooperativePool,
    .enabled(if: FileManager.default.isExecutableFile(atPath: builtProduct("trove")), "needs the built trove"))
struct ContainerIndexingTests {
    @Test("the good files are indexed with their pages and slides; each bad one is one named line")
    func hostileBesideGood() async throws {
        let fixture = try IndexingFixture()
        let files = FileManager.default
        for (from, to) in [
            ("docx/par-rendered-page-breaks.docx", "breaks.docx"), ("pptx/test.pptx", "deck.pptx"),
            ("odt/simpletable.odt", "table.odt"), ("odt/nasty.odt", "xxe.odt"), ("pdf/pages.pdf", "report.docx"),
        ] {
            try files.copyItem(atPath: fixtures + "/" + from, toPath: fixture.notes + "/" + to)
        }
        let real = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/docx/par-known-styles.docx"))
        try real.prefix(real.count / 2).write(to: URL(fileURLWithPath: fixture.notes + "/truncated.docx"))
        try fixture.write("plain.md", "# Plain\n\nA note about figs.")

        let store = try SQLiteStore(path: fixture.indexPath, createIfMissing: true)
        var lines: [String] = []
        let worker = [builtProduct("trove"), "extract-worker"]
        let summary = try await Indexer(store: store, embedder: fixture.embedder(), extractionWorker: worker).run(
            IndexingFixture.options(fixture.notes)
        ) { event in
            if case .skipped(let line) = event { lines.append(line) }
        }
        #expect(summary.newDocuments == 5)
        #expect(summary.extractionFailures == ["docx": ["damaged": 2]])
        #expect(lines.sorted().map { $0.prefix(58) } == [
            "skipped report.docx: damaged — not a zip archive (the file ",
            "skipped truncated.docx: damaged — not a zip archive",
        ].map { $0.prefix(58) })
        let rows = try fixture.rows()
        #expect(rows.contains { $0.path == "table.odt" && $0.text.contains("Cell 1 | Cell 2") })
        #expect(rows.contains { $0.path == "xxe.odt" && $0.text == "Test:" })
        let chunks = try store.chunks(ids: try store.chunkIDs(inDocuments: try store.searchableDocuments().map(\.id)))
        let slide = try #require(chunks.values.first { $0.text.contains("Presentation Title Text") })
        #expect(slide.locator == StoredLocator(kind: "slide", first: 1, last: 1, approximate: false))
        let page = try #require(chunks.values.first { $0.text.contains("<<in one run.") })
        #expect(page.locator?.kind == "page" && page.locator?.approximate == true && (page.locator?.first ?? 0) > 1)
    }
}
