import Foundation
import Synchronization
@preconcurrency import Glibc
import TroveIngest

/// PDF through poppler's command-line tools, run as separate programs (GPL code is never linked): `pdftotext` in
/// its default mode for the text (pages split at its form feeds), `pdftohtml -xml` for the outline (headings).
/// The file's open descriptor is each tool's standard input, so no path is ever opened again.
package enum PDFExtractor {
    /// What to install when the tools are missing.
    package static let installHint = "apt-get install poppler-utils poppler-data"
    /// True when poppler-data's character maps are installed (without them CJK PDFs come out empty).
    package static var hasPopplerData: Bool { FileManager.default.fileExists(atPath: "/usr/share/poppler/cMap") }
    /// Fewer words than this per page on average (over three pages or more) is a scan with a stray text layer
    /// (page numbers, a header), not a text PDF: Debian's live-manual PDF has 5 words per page (formats review §1.2.4).
    static let fewestWordsPerPage = 10

    /// The document in the PDF open as `descriptor`, or its named failure.
    package static func extract(descriptor: Int32, limits: ExtractionLimits) throws(ExtractionFailure) -> ExtractedDocument {
        let environment = ProcessInfo.processInfo.environment
        guard let pdftotext = Subprocess.find("pdftotext", searchPath: environment["PATH"]) else {
            throw ExtractionFailure(.toolMissing, "pdftotext not installed (\(installHint))")
        }
        let text = try run(
            pdftotext, ["pdftotext", "-enc", "UTF-8", "fd://0", "-"], descriptor: descriptor, cap: limits.maxOutputBytes,
            environment: environment)
        // Checked first: a tool stopped at the cap was killed there.
        if text.truncated {
            throw ExtractionFailure(.damaged, "more than \(ByteSize.format(Int64(limits.maxOutputBytes))) of text")
        }
        if let death = text.deathFailure(tool: "pdftotext") { throw death }
        guard text.termination == .exited(0) else { throw failure(text) }
        var pages = PDFText.pages(text.output)
        var extractor = version(pdftotext, environment: environment)
        if let scan = scanned(pages) {
            // A scan: read by OCR when asked to (`--ocr`) and within its page budget, else named.
            guard limits.ocrPages > 0 else {
                throw ExtractionFailure(.noTextLayer, "\(scan.detail) (scanned? --ocr \(pages.count) reads it)")
            }
            guard pages.count <= limits.ocrPages else {
                throw ExtractionFailure(
                    .noTextLayer, "\(scan.detail); \(pages.count) pages is over the OCR budget of \(limits.ocrPages)")
            }
            let read = try PDFOCR.pages(
                descriptor: descriptor, count: pages.count, environment: environment, limits: limits)
            if scanned(read.pages) != nil {
                throw ExtractionFailure(.noTextLayer, "\(scan.detail), and OCR found no text either")
            }
            pages = read.pages
            extractor = read.extractor
        }
        let outline = Subprocess.find("pdftohtml", searchPath: environment["PATH"]).map { pdftohtml in
            outlineItems(pdftohtml, descriptor: descriptor, environment: environment)
        }
        return try PDFText.document(pages: pages, outline: outline ?? [], extractor: extractor, limits: limits)
    }

    /// The failure of pages with no text layer (no words, or a stray few a page: a scan), or nil for a text PDF.
    static func scanned(_ pages: [[String]]) -> ExtractionFailure? {
        let words = PDFText.wordCount(pages)
        if words == 0 {
            return ExtractionFailure(.noTextLayer, "no text on \(pages.count) page\(pages.count == 1 ? "" : "s")")
        }
        if pages.count >= 3, words < fewestWordsPerPage * pages.count {
            return ExtractionFailure(.noTextLayer, "little text (\(words / pages.count) words/page)")
        }
        return nil
    }

    /// The outline read by `pdftohtml -xml` (first page only, for speed); none when it fails: the text stands
    /// without headings.
    private static func outlineItems(_ pdftohtml: String, descriptor: Int32, environment: [String: String])
        -> [PDFOutline.Item]
    {
        // pdftohtml reads no `fd://`; /dev/stdin reopens the same file.
        let arguments = ["pdftohtml", "-xml", "-i", "-q", "-f", "1", "-l", "1", "-stdout", "/dev/stdin"]
        guard let run = try? run(pdftohtml, arguments, descriptor: descriptor, cap: 8 << 20, environment: environment),
            run.termination == .exited(0), !run.truncated
        else { return [] }
        return PDFOutline.items(run.output)
    }

    /// A tool run with the PDF as its standard input, read from the start.
    private static func run(
        _ path: String, _ arguments: [String], descriptor: Int32, cap: Int, environment: [String: String]
    ) throws(ExtractionFailure) -> ToolRun {
        lseek(descriptor, 0, SEEK_SET)
        do {
            return try ToolRun.run(path, arguments: arguments, input: descriptor, environment: environment, outputCap: cap)
        } catch {
            throw ExtractionFailure(.toolMissing, "\(error.detail) (\(installHint))")
        }
    }

    /// A failed pdftotext run named: a password is needed, else the file is damaged (its first error line).
    static func failure(_ run: ToolRun) -> ExtractionFailure {
        if run.errors.contains("Incorrect password") { return ExtractionFailure(.encrypted, "a password is needed") }
        let first = run.errors.split(separator: "\n").first { $0.contains("Error") } ?? run.errors.split(separator: "\n").first
        let reason = first.map { line in
            line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        }
        return ExtractionFailure(
            .damaged, "not a readable PDF" + (reason.map { $0.isEmpty ? "" : " (\($0.lowercased()))" } ?? ""))
    }

    /// `pdftotext 22.12.0`: how the document was read, stored with it (asked once per worker).
    private static func version(_ pdftotext: String, environment: [String: String]) -> String {
        cachedVersion.withLock { cached in
            if let cached { return cached }
            let found = ToolRun.version(of: pdftotext, environment: environment).map { "pdftotext \($0)" } ?? "pdftotext"
            cached = found
            return found
        }
    }

    private static let cachedVersion = Mutex<String?>(nil)
}
