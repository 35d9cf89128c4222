import CTroveProcess
import Foundation
@preconcurrency import Glibc
import TroveIngest

/// Scanned pages read by OCR (opt-in: `ExtractionLimits.ocrPages`): each page rendered by `pdftoppm` (300 dpi, gray,
/// PNG on its standard output) straight into `tesseract` through a pipe, one page at a time, nothing written to disk
/// (the worker may write no file). tesseract runs with `OMP_THREAD_LIMIT=1`: its default OpenMP threads were 4×
/// slower on a 2-vCPU machine (formats review §1.2.5).
enum PDFOCR {
    /// What to install for `--ocr`.
    static let installHint = "apt-get install tesseract-ocr tesseract-ocr-eng"

    /// The text of pages 1…`count` read by OCR, as `PDFText.pages` gives it, and the extractor's name for it.
    static func pages(
        descriptor: Int32, count: Int, environment: [String: String], limits: ExtractionLimits
    ) throws(ExtractionFailure) -> (pages: [[String]], extractor: String) {
        let path = environment["PATH"]
        guard let pdftoppm = Subprocess.find("pdftoppm", searchPath: path) else {
            throw ExtractionFailure(.toolMissing, "pdftoppm not installed (\(PDFExtractor.installHint))")
        }
        guard let tesseract = Subprocess.find("tesseract", searchPath: path) else {
            throw ExtractionFailure(.toolMissing, "tesseract not installed, needed by --ocr (\(installHint))")
        }
        var pages: [[String]] = []
        var bytes = 0
        for number in 1...max(count, 1) {
            let text = try page(number, descriptor: descriptor, pdftoppm: pdftoppm, tesseract: tesseract,
                environment: environment, cap: limits.maxOutputBytes - bytes)
            bytes += text.count
            pages.append(PDFText.pages(text).first ?? [])
        }
        let version = ToolRun.version(of: tesseract, environment: environment, flag: "--version").map { " \($0)" } ?? ""
        return (pages, "tesseract\(version) (OCR)")
    }

    /// One page: pdftoppm's PNG piped into tesseract, whose text is read up to `cap` bytes.
    private static func page(
        _ number: Int, descriptor: Int32, pdftoppm: String, tesseract: String, environment: [String: String], cap: Int
    ) throws(ExtractionFailure) -> [UInt8] {
        var pipe: [Int32] = [-1, -1]
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        guard trove_pipe(&pipe) == 0 else { throw ExtractionFailure(.crashed, "no pipe for OCR") }
        lseek(descriptor, 0, SEEK_SET)
        let renderer: Subprocess
        do {
            renderer = try Subprocess.start(
                pdftoppm,
                arguments: ["pdftoppm", "-r", "300", "-gray", "-png", "-f", "\(number)", "-l", "\(number)", "-singlefile",
                    "fd://0"],
                environment: environment, descriptors: [descriptor, pipe[1], null],
                limits: Subprocess.Limits(dieWithParent: true))
        } catch {
            close(pipe[0])
            close(pipe[1])
            throw ExtractionFailure(.toolMissing, "\(error.detail) (\(PDFExtractor.installHint))")
        }
        close(pipe[1])
        defer { close(pipe[0]) }
        let reader: ToolRun
        do {
            reader = try ToolRun.run(
                tesseract, arguments: ["tesseract", "stdin", "stdout", "-c", "page_separator="], input: pipe[0],
                environment: environment.merging(["OMP_THREAD_LIMIT": "1"]) { $1 }, outputCap: max(cap, 0))
        } catch {
            renderer.kill()
            _ = renderer.wait()
            throw ExtractionFailure(.toolMissing, "\(error.detail) (\(installHint))")
        }
        let rendered = renderer.wait()
        if reader.truncated { throw ExtractionFailure(.damaged, "more than the text cap from OCR") }
        if let death = reader.deathFailure(tool: "tesseract") { throw death }
        if case .signalled(let signal) = rendered {
            throw ExtractionFailure(.crashed, "pdftoppm died of \(signalName(signal))")
        }
        return reader.termination == .exited(0) ? reader.output : []
    }
}
