import Foundation
import Testing
import TroveKit
import TroveTestSupport

@Suite(
    "trove watch reads PDFs and goes on after one that cannot be read", .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pdftotext")
            && FileManager.default.isExecutableFile(atPath: builtProduct("trove")),
        "needs pdftotext (apt-get install poppler-utils) and the built trove"))
struct WatchExtractionTests {
    @Test("a PDF, then random bytes named .pdf, then a note: the watch indexes the good ones and keeps running")
    func goesOnAfterFailure() async throws {
        let rig = try await WatchRig()
        let pdf = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TroveExtractTests/Fixtures/pdf/pages.pdf").path
        try await rig.change { try FileManager.default.copyItem(atPath: pdf, toPath: rig.path("report.pdf")) }
        try await rig.expectIndexed(["a.md", "report.pdf"])
        var random = SplitMix64(seed: 7)
        let bytes = Data((0..<2048).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        try await rig.change { try bytes.write(to: URL(fileURLWithPath: rig.path("broken.pdf"))) }
        try await rig.change { try rig.write("b.md", "# Beta\n\nthe second note\n") }
        try await rig.expectIndexed(["a.md", "b.md", "report.pdf"])
        #expect(try await rig.finds("dates", in: "report.pdf"))
        await rig.finish()
    }

    @Test("--retry-failed reads a remembered failure again in the catch-up pass only; later passes remember it")
    func retryFailedAtStartup() async throws {
        var random = SplitMix64(seed: 11)
        let bytes = Data((0..<2048).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        var first: IndexSummary?
        let rig = try await WatchRig(tweak: { $0.index.retryFailed = true }) { index, root in
            try bytes.write(to: URL(fileURLWithPath: root + "/broken.pdf"))
            for try await progress in try await index.index(IndexOptions(roots: [root])) {
                if case .finished(let summary) = progress { first = summary }
            }
        }
        // The plain run before the watch tried it and remembered the failure.
        #expect(first?.extractionFailures["pdf"]?.values.reduce(0, +) == 1)
        #expect(first?.failuresRemembered == 0)
        // The watch's catch-up pass, with --retry-failed, read it again rather than remembering.
        let startup = try #require(rig.allPasses.first)
        #expect(startup.summary.extractionFailures["pdf"]?.values.reduce(0, +) == 1)
        #expect(startup.summary.failuresRemembered == 0)
        // A later pass over the same bytes (touched) remembers it: the flag is for the catch-up pass.
        let touched = try await rig.change {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: rig.path("broken.pdf"))
        }
        #expect(touched.summary.failuresRemembered == 1)
        await rig.finish()
    }
}
