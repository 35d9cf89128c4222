import CZlib
import Foundation
import Testing
import TroveExtract
import TroveIngest

/// Issue 27's cross-format ground truth: Debian's live-manual packages ship one book (the Live Systems Manual) as
/// TXT, EPUB, ODT, HTML and PDF, made by the project's own tool chain (SiSU), not by us. They are fetched at test time
/// (`apt-get download`, unpacked under `.build/fixtures/live-manual`, never committed) and each format is read in the
/// extraction worker, as the indexer reads it: its word recall against the TXT must be at least 0.99.
@Suite(.enabled(if: LiveManual.root != nil, "needs Debian's live-manual-* packages (apt-get download): offline?"))
struct LiveManualTests {
    @Test("each format of the English book recalls the TXT's words", arguments: [
        (DocumentFormat.epub, "epub/live-manual.en.epub"), (.odt, "odt/live-manual.en.odt"),
        (.html, "html/live-manual.en.html"),
    ])
    func recall(format: DocumentFormat, file: String) async throws {
        let root = try #require(LiveManual.root)
        let text = try LiveManual.gunzip(root + "/txt/live-manual.en.txt.gz")
        let reference = LiveManual.words(String(decoding: text, as: UTF8.self))
        let service = WorkerTests.service()
        defer { service.shutdown() }
        let result = try await WorkerTests.extract(try LiveManual.bytes(root + "/" + file), as: format, with: service)
        let document = try result.get()
        let words = LiveManual.words(document.lines.joined(separator: "\n"))
        let (recall, precision) = LiveManual.overlap(reference, words)
        print("live-manual en \(format.rawValue): recall \(recall), precision \(precision)")
        #expect(recall >= 0.99)
        #expect(document.headings.count > 20)
    }

    /// The book's PDF has almost no text layer (pdftotext finds 189 words on 64 pages: its fonts map to no Unicode),
    /// so it is reported as such, never indexed as a near-empty document.
    @Test func thePDFIsReportedAsHavingNoTextLayer() async throws {
        let root = try #require(LiveManual.root)
        let service = WorkerTests.service()
        defer { service.shutdown() }
        let pdf = try LiveManual.gunzip(root + "/pdf/live-manual.portrait.en.a4.pdf.gz")
        let result = try await WorkerTests.extract(pdf, as: .pdf, with: service)
        let failure = try #require(WorkerTests.failure(result))
        #expect([.noTextLayer, .toolMissing].contains(failure.kind))
    }
}

/// The live-manual packages, fetched once per build folder.
enum LiveManual {
    static let packages = [
        "live-manual-txt", "live-manual-epub", "live-manual-odf", "live-manual-html", "live-manual-pdf",
    ]

    /// `usr/share/doc/live-manual` of the unpacked packages, or nil when they cannot be fetched.
    static let root: String? = {
        let build = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/fixtures/live-manual").path
        let doc = build + "/usr/share/doc/live-manual"
        let wanted = ["txt/live-manual.en.txt.gz", "epub/live-manual.en.epub", "odt/live-manual.en.odt",
            "html/live-manual.en.html", "pdf/live-manual.portrait.en.a4.pdf.gz"]
        let present = { wanted.allSatisfy { FileManager.default.fileExists(atPath: doc + "/" + $0) } }
        if present() { return doc }
        let downloads = build + "/debs"
        try? FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        guard run("apt-get", ["-q", "-o", "Acquire::http::Timeout=20", "-o", "Acquire::Retries=0", "download"]
            + packages, in: downloads) else { return nil }
        let debs = (try? FileManager.default.contentsOfDirectory(atPath: downloads))?.filter { $0.hasSuffix(".deb") }
        for deb in debs ?? [] where !run("dpkg-deb", ["-x", deb, build], in: downloads) { return nil }
        return present() ? doc : nil
    }()

    /// Runs a program, its output discarded; true when it exits 0.
    private static func run(_ program: String, _ arguments: [String], in folder: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A gzip file's content (Debian compresses the TXT and the PDFs), read with zlib.
    static func gunzip(_ path: String) throws -> [UInt8] {
        let file = try #require(gzopen(path, "rb"))
        defer { gzclose(file) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32($0.count)) }
            guard count > 0 else { break }
            out += buffer.prefix(Int(count))
        }
        return out
    }

    /// Lowercased runs of ASCII letters and digits, counted (the study's scorer: a bag of words, not their order).
    static func words(_ text: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        var word = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                counts[word, default: 0] += 1
                word = ""
            }
        }
        if !word.isEmpty { counts[word, default: 0] += 1 }
        return counts
    }

    /// Recall (shared words / the reference's) and precision (shared words / the output's).
    static func overlap(_ reference: [String: Int], _ output: [String: Int]) -> (recall: Double, precision: Double) {
        let shared = reference.reduce(0) { $0 + min($1.value, output[$1.key] ?? 0) }
        let total = { (counts: [String: Int]) in max(1, counts.values.reduce(0, +)) }
        return (Double(shared) / Double(total(reference)), Double(shared) / Double(total(output)))
    }
}
