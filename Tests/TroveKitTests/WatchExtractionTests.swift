import Foundation
import Testing
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
}
