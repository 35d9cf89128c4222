import Foundation
import Testing
import TroveTestSupport

/// `trove doctor`'s extraction lines, from the real binary (whose worker is itself): the formats read, the PDF tools
/// and their versions, and whether bubblewrap confines the worker here.
@Suite("trove doctor: extraction")
struct DoctorExtractionTests {
    @Test("the binary's doctor names the PDF tools with their version and says whether the worker is confined")
    func lines() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let run = try await runBinary(
            ["doctor"], environment: ["TROVE_INDEX": folder.path + "/i.sqlite", "OLLAMA_HOST": server.baseURL.absoluteString,
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        #expect(run.output.contains("extractors: pdf"), "\(run.output)")
        let poppler = FileManager.default.isExecutableFile(atPath: "/usr/bin/pdftotext")
        if poppler {
            #expect(run.output.contains("ok       pdf: pdftotext "), "\(run.output)")
        }
        #expect(
            run.output.contains("ok       confinement: the extraction worker runs in bubblewrap ")
                || run.output.contains("ok       confinement: bubblewrap confinement is not available ("),
            "\(run.output)")
    }

    @Test("without pdftotext on PATH doctor says so, with the apt-get line, and exits 1")
    func missingPoppler() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let run = try await runBinary(
            ["doctor"], environment: ["TROVE_INDEX": folder.path + "/i.sqlite", "OLLAMA_HOST": server.baseURL.absoluteString,
                "PATH": "/nonexistent"])
        #expect(run.status == 1)
        #expect(
            run.output.contains(
                "problem  pdf: pdftotext is not installed: PDFs are skipped, each with a warning — fix: apt-get install poppler-utils poppler-data"),
            "\(run.output)")
    }
}
