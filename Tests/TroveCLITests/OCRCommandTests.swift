import Foundation
import Testing
import TroveTestSupport

@testable import TroveCLI

/// Why the OCR test cannot run here, or nil: the worker is the built `trove`, with pdftotext and tesseract.
private let ocrUnavailable: String? = {
    if !FileManager.default.isExecutableFile(atPath: builtProduct("trove")) { return "needs the built trove" }
    for (tool, package) in [("pdftotext", "poppler-utils poppler-data"), ("tesseract", "tesseract-ocr tesseract-ocr-eng")]
    where !FileManager.default.isExecutableFile(atPath: "/usr/bin/" + tool) {
        return "needs \(tool): apt-get install \(package) (Scripts/test.sh does it)"
    }
    return nil
}()

@Suite("trove index --ocr reads scanned PDFs", .enabled(if: ocrUnavailable == nil, "\(ocrUnavailable ?? "")"))
struct OCRCommandTests {
    @Test("a scan is skipped with the --ocr hint and remembered; --ocr reads it, page by page, and it is found")
    func scanThenOCR() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/scans", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: repositoryRoot + "/Tests/TroveExtractTests/Fixtures/pdf/image-only.pdf",
            toPath: folder.path + "/scans/letter.pdf")
        _ = try folder.write("scans/notes.md", "# Notes\n\nNothing scanned here.\n")
        let index = folder.path + "/i.sqlite"

        let plain = await trove(["index", folder.path + "/scans"], index: index, server: server)
        #expect(plain.status == 0, "\(plain.error)")
        #expect(plain.error.contains("letter.pdf: no text layer — no text on 2 pages (scanned? --ocr 2 reads it)"))
        let again = await trove(["index", folder.path + "/scans"], index: index, server: server)
        #expect(!again.error.contains("letter.pdf"), "remembered, not tried again: \(again.error)")

        let short = await trove(["index", "--ocr", "1", folder.path + "/scans"], index: index, server: server)
        #expect(short.error.contains("2 pages is over the OCR budget of 1"), "\(short.error)")
        let read = await trove(["index", "--ocr", "2", folder.path + "/scans"], index: index, server: server)
        #expect(read.status == 0, "\(read.error)")
        #expect(!read.error.contains("letter.pdf"), "\(read.error)")
        let hit = await trove(
            ["search", "--mode", "keyword", "-n", "1", "scanned page"], index: index, server: server)
        #expect(hit.output.contains("letter.pdf:"), "\(hit.output)")
        #expect(hit.output.contains(" p.1") || hit.output.contains(" p.2"), "\(hit.output)")

        #expect(await trove(["index", "--ocr", "-1"], index: index, server: server).status == 64)
    }
}
