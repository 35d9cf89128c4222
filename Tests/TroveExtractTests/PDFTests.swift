import Foundation
@preconcurrency import Glibc
import Testing
import TroveExtract
import TroveIngest
import TroveTestSupport

/// True when poppler's tools are on PATH (Scripts/test.sh installs them).
let popplerInstalled = Subprocess.find("pdftotext", searchPath: ProcessInfo.processInfo.environment["PATH"]) != nil

/// PDF through the real poppler tools: the committed PDFs (ours made by Scripts/make-test-pdfs.py, and a real one
/// made by others; Fixtures/pdf/SOURCES.md), read in process here and through the worker in the last tests.
@Suite(
    "PDF extraction",
    .enabled(if: popplerInstalled, "pdftotext is not installed (apt-get install poppler-utils poppler-data)"))
struct PDFTests {
    static func fixture(_ name: String) throws -> String {
        try #require(Bundle.module.url(forResource: "Fixtures/pdf/" + name, withExtension: nil)).path
    }

    /// Extracts the PDF at `path` in this process (the worker's code, without the worker).
    static func extract(_ path: String, limits: ExtractionLimits = ExtractionLimits()) throws -> Result<ExtractedDocument, ExtractionFailure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        do throws(ExtractionFailure) {
            return .success(try PDFExtractor.extract(descriptor: descriptor, limits: limits))
        } catch {
            return .failure(error)
        }
    }

    static func document(_ name: String) throws -> ExtractedDocument {
        try extract(try fixture(name)).get()
    }

    /// The page each line is on, from the locators.
    static func pageOfLine(_ document: ExtractedDocument) -> [Int] {
        var pages: [Int] = []
        var current = 0
        var locators = document.locators[...]
        for index in document.lines.indices {
            while let next = locators.first, next.line <= index {
                current = next.number
                locators.removeFirst()
            }
            pages.append(current)
        }
        return pages
    }

    @Test("pages are hard boundaries with page locators, the blank page included; the outline gives the headings")
    func pages() throws {
        let document = try Self.document("pages.pdf")
        #expect(document.extractor.hasPrefix("pdftotext "))
        let pageOf = Self.pageOfLine(document)
        func page(of text: String) -> Int? { document.lines.firstIndex { $0.contains(text) }.map { pageOf[$0] } }
        #expect(page(of: "apricots") == 1)
        #expect(page(of: "bananas") == 2)
        #expect(page(of: "cherries") == 2)
        #expect(page(of: "dates") == 4)
        #expect(document.locators.allSatisfy { $0.kind == .page && !$0.approximate })
        #expect(Set(document.boundaries) == Set(document.locators.map(\.line)))
        // Page 3 is blank: it has no line, so page 4's region starts where page 3's would.
        #expect(document.locators.map(\.number) == [1, 2, 4])
        let headings = Dictionary(uniqueKeysWithValues: document.headings.map { (document.lines[$0.line], $0.path) })
        #expect(headings["Getting started"] == ["Getting started"])
        #expect(headings["Configuration"] == ["Configuration"])
        #expect(headings["Advanced options"] == ["Configuration", "Advanced options"])
        #expect(headings["Troubleshooting"] == ["Troubleshooting"])
        // A line starting with '#' is text, not a heading.
        #expect(document.lines.contains("# this line starts with a hash and is no heading"))
        #expect(document.headings.count == 4)
    }

    @Test("two columns come out in reading order, column 1 before column 2 (default mode, never -layout)")
    func twoColumns() throws {
        let document = try Self.document("two-columns.pdf")
        let numbers = document.lines.compactMap { line -> Int? in
            guard line.hasPrefix("Sentence ") else { return nil }
            return Int(line.dropFirst("Sentence ".count).prefix(2))
        }
        #expect(numbers == Array(1...60))
    }

    @Test("Chinese and Japanese come out as text (poppler-data)")
    func cjk() throws {
        let text = try Self.document("cjk.pdf").lines.joined(separator: "\n")
        #expect(text.contains("全文检索"))
        #expect(text.contains("日本語の文書"))
    }

    @Test("a user password is 'encrypted'")
    func encrypted() throws {
        let failure = try Self.extract(try Self.fixture("encrypted.pdf"))
        #expect(failure == .failure(ExtractionFailure(.encrypted, "a password is needed")))
    }

    @Test("pictures of text are 'no text layer', a stray page number per picture is 'little text'")
    func scanned() throws {
        #expect(try Self.extract(try Self.fixture("image-only.pdf")) == .failure(ExtractionFailure(.noTextLayer, "no text on 2 pages (scanned? --ocr 2 reads it)")))
        #expect(try Self.extract(try Self.fixture("little-text.pdf")) == .failure(ExtractionFailure(.noTextLayer, "little text (1 words/page) (scanned? --ocr 6 reads it)")))
    }

    @Test("a truncated PDF and random bytes named .pdf are 'damaged'")
    func damaged() throws {
        let folder = try TemporaryDirectory()
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Self.fixture("pages.pdf")))
        let truncated = try folder.write("truncated.pdf", data: whole.prefix(whole.count * 3 / 4))
        var generator = SplitMix64(seed: 7)
        let random = try folder.write("random.pdf", data: Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
        for path in [truncated, random] {
            let result = try Self.extract(path)
            guard case .failure(let failure) = result else {
                Issue.record("\(path) extracted")
                continue
            }
            #expect(failure.kind == .damaged)
            #expect(failure.detail.hasPrefix("not a readable PDF"), "\(failure.detail)")
        }
    }

    @Test("text past the output cap is 'damaged', not cut short in silence")
    func outputCap() throws {
        var limits = ExtractionLimits()
        limits.maxOutputBytes = 200
        let result = try Self.extract(try Self.fixture("two-columns.pdf"), limits: limits)
        #expect(result == .failure(ExtractionFailure(.damaged, "more than 200 bytes of text")))
    }

    @Test("a real PDF made by others (the Shared MIME-info spec): 17 pages, its outline placed on its pages")
    func realPDF() throws {
        let document = try Self.document("shared-mime-info-spec.pdf")
        let pageOf = Self.pageOfLine(document)
        #expect(document.locators.last?.number == 17)
        let section = try #require(document.headings.first { $0.path.last == "2.2. The source XML files" })
        #expect(section.path == ["2. Unified system", "2.2. The source XML files"])
        #expect(pageOf[section.line] == 4)
        #expect(document.lines[section.line] == "2.2. The source XML files")
        #expect(document.headings.count >= 20)
        // Every heading sits on the page its outline entry names (the heading's own line, found on that page).
        let text = document.lines.joined(separator: " ")
        #expect(text.contains("Each application provides only a single XML source file"))
    }

    @Test("through the worker: the descriptor is read, not the path (the file was renamed and replaced meanwhile)")
    func throughWorker() async throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write("report.pdf", data: try Data(contentsOf: URL(fileURLWithPath: try Self.fixture("pages.pdf"))))
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        // A swap after opening cannot point the worker elsewhere: it gets the open file, never the name.
        try FileManager.default.removeItem(atPath: path)
        try folder.write("report.pdf", "not a pdf")
        let service = ExtractionService(workerCommand: [builtProduct("trove"), "extract-worker"])
        defer { service.shutdown() }
        let document = try await service.extract(descriptor: descriptor, format: .pdf)
        #expect(document.lines.contains { $0.contains("apricots") })
        #expect(document.locators.map(\.number) == [1, 2, 4])
    }

    @Test("without pdftotext on PATH the worker answers 'tool missing' with the apt-get line")
    func toolMissing() async throws {
        let descriptor = open(try Self.fixture("pages.pdf"), O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let service = ExtractionService(workerCommand: ["/usr/bin/env", "PATH=/nonexistent", builtProduct("trove"), "extract-worker"])
        defer { service.shutdown() }
        await #expect(throws: ExtractionFailure(.toolMissing, "pdftotext not installed (apt-get install poppler-utils poppler-data)")) {
            try await service.extract(descriptor: descriptor, format: .pdf)
        }
    }
}

/// OCR of scanned PDFs (opt-in), with the real tesseract.
@Suite(
    "PDF OCR",
    .enabled(if: popplerInstalled && tesseractInstalled, "tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-eng)"))
struct PDFOCRTests {
    @Test("with a page budget, a scanned PDF is read by OCR, page by page, and says so in its extractor")
    func ocr() throws {
        var limits = ExtractionLimits()
        limits.ocrPages = 2
        let document = try PDFTests.extract(try PDFTests.fixture("image-only.pdf"), limits: limits).get()
        #expect(document.extractor.hasPrefix("tesseract "), "\(document.extractor)")
        #expect(document.locators.map(\.number) == [1, 2])
        let pageOf = PDFTests.pageOfLine(document)
        let first = try #require(document.lines.firstIndex { $0.contains("Scanned page") })
        let second = try #require(document.lines.lastIndex { $0.contains("Scanned page 2") })
        #expect(pageOf[first] == 1 && pageOf[second] == 2)
        #expect(document.lines.contains { $0.contains("nothing to select") })
    }

    @Test("a scan longer than the budget is not read, and the message says why")
    func overBudget() throws {
        var limits = ExtractionLimits()
        limits.ocrPages = 1
        let result = try PDFTests.extract(try PDFTests.fixture("image-only.pdf"), limits: limits)
        #expect(result == .failure(ExtractionFailure(.noTextLayer, "no text on 2 pages; 2 pages is over the OCR budget of 1")))
    }
}

/// True when tesseract is on PATH (Scripts/test.sh installs it).
let tesseractInstalled = Subprocess.find("tesseract", searchPath: ProcessInfo.processInfo.environment["PATH"]) != nil
