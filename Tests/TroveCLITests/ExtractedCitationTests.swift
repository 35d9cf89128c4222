import Foundation
import Testing
import TroveKit
import TroveOutput
import TroveTestSupport

@testable import TroveCLI

/// Why the PDF citation tests cannot run here, or nil: the worker is the built `trove`, and it needs pdftotext.
private let pdfUnavailable: String? = {
    if !FileManager.default.isExecutableFile(atPath: builtProduct("trove")) { return "needs the built trove" }
    if !FileManager.default.isExecutableFile(atPath: "/usr/bin/pdftotext") {
        return "needs pdftotext: apt-get install poppler-utils poppler-data (Scripts/test.sh does it)"
    }
    return nil
}()

@Suite("The page is in every citation", .enabled(if: pdfUnavailable == nil, "\(pdfUnavailable ?? "")"))
struct ExtractedCitationTests {
    /// An index of the committed `pages.pdf` (Scripts/make-test-pdfs.py: page 3 blank, page 4 about dates) and a note.
    func indexed() async throws -> (folder: TemporaryDirectory, index: String, server: FakeOllamaServer) {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/papers", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: repositoryRoot + "/Tests/TroveExtractTests/Fixtures/pdf/pages.pdf",
            toPath: folder.path + "/papers/report.pdf")
        _ = try folder.write("papers/notes.md", "# Notes\n\nDates grow on palms.\n")
        let index = folder.path + "/i.sqlite"
        let run = await trove(["index", folder.path + "/papers"], index: index, server: server)
        #expect(run.status == 0, "\(run.error)")
        return (folder, index, server)
    }

    @Test("search prints the page after the lines, and JSON carries locator and uri")
    func searchHits() async throws {
        let (folder, index, server) = try await indexed()
        let text = await trove(["search", "--mode", "keyword", "-n", "1", "fourth page errors"], index: index, server: server)
        #expect(text.output.hasPrefix(displayed(folder.path + "/papers/report.pdf") + ":10-11 p.4  "), "\(text.output)")
        let json = await trove(
            ["search", "--mode", "keyword", "--json", "-n", "2", "fourth page errors"], index: index, server: server)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let hits = try #require(decoded?["hits"] as? [[String: Any]])
        let first = try #require(hits.first)
        #expect(first["uri"] as? String == "file://\(folder.path)/papers/report.pdf#page=4")
        let locator = try #require(first["locator"] as? [String: Any])
        #expect(locator["kind"] as? String == "page")
        #expect(locator["start"] as? Int == 4 && locator["end"] as? Int == 4)
        #expect(locator["approximate"] as? Bool == false)
    }

    @Test("trove get PATH#page=N prints that page's lines; a blank page or one past the end says so")
    func getPage() async throws {
        let (folder, index, server) = try await indexed()
        let page = await trove(["get", folder.path + "/papers/report.pdf#page=4"], index: index, server: server)
        #expect(page.status == 0)
        #expect(page.output == "Troubleshooting\nThe fourth page talks about dates and errors.\n")
        let first = await trove(["get", "-n", folder.path + "/papers/report.pdf#page=1"], index: index, server: server)
        #expect(first.output.hasPrefix("1\tGetting started\n2\tThe first page talks about apricots"))
        let blank = await trove(["get", folder.path + "/papers/report.pdf#page=3"], index: index, server: server)
        #expect(blank.status == 1)
        #expect(blank.error == "Error: page 3 of \(folder.path)/papers/report.pdf holds no text\n")
        let past = await trove(["get", folder.path + "/papers/report.pdf#page=9"], index: index, server: server)
        #expect(past.error == "Error: \(folder.path)/papers/report.pdf has 4 pages with text; page 9 is past the end\n")
        let lines = await trove(["get", folder.path + "/papers/report.pdf:10-11"], index: index, server: server)
        #expect(lines.output == page.output)
        let note = await trove(["get", folder.path + "/papers/notes.md#page=1"], index: index, server: server)
        #expect(note.error.hasSuffix("has no pages in the index — give lines instead, e.g. \(folder.path)/papers/notes.md:1-40\n"))
    }

    @Test("ask and chat cite the page: [1] report.pdf p.4 (lines 10–11)")
    func citations() {
        var hit = SearchHit(
            rank: 1, chunkID: 1, rootPath: "/p", relativePath: "report.pdf", startLine: 120, endLine: 138,
            heading: "Results", score: 1, text: "…")
        hit.locator = PassageLocator(kind: .page, first: 4, last: 5)
        #expect(AnswerPrinter.describe(NumberedSource(number: 1, hit: hit)) == "[1] /p/report.pdf p.4–5 (lines 120–138)  Results")
        hit.locator = nil
        #expect(AnswerPrinter.describe(NumberedSource(number: 2, hit: hit)) == "[2] /p/report.pdf:120-138  Results")
        hit.locator = PassageLocator(kind: .slide, first: 3, last: 3)
        #expect(hit.uri == "file:///p/report.pdf#slide=3")
        let formatted = HitFormatter(query: "x", color: false, currentDirectory: "/").format(hit)
        #expect(formatted.hasPrefix("p/report.pdf:120-138 slide 3  1.00"))
    }
}
