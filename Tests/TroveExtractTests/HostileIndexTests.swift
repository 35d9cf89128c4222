import Foundation
import Testing
import TroveTestSupport
import TroveTestTraits

/// Issue 27's hostile files side by side with good ones in one `trove index` run of the built binary (fake Ollama):
/// none crashes or hangs the run, each is one warning line naming it, the good files beside them are indexed, and
/// a local file an entity points at never reaches the index. (The extractor-level tests name each failure exactly:
/// HostileContainerTests, NotebookExtractorTests, MailExtractorTests.)
@Suite(
    "Hostile files beside good ones in one trove index run", .offCooperativePool,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: troveExecutable.path)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/pdftotext"),
        "needs the built trove and pdftotext (apt-get install poppler-utils)"))
struct HostileIndexTests {
    static let marker = "TROVE-XXE-MARKER-51c2"

    /// The hostile files of the list (bombs, lying sizes, entity tricks, nesting, disguises, random bytes),
    /// by name.
    static func hostile() -> [String: [UInt8]] {
        let (zeros, crc) = ZipWriter.deflatedZeros(100 << 20)
        func bomb(declared: UInt64, zip64: Bool) -> [UInt8] {
            var entries = WordFile.entries(body: "").map { ($0, ZipWriter.deflated($0.data), ZipWriter.crc($0.data)) }
            var entry = ZipWriter.Entry("word/document.xml", bytes: [])
            entry.declaredSize = declared
            entry.zip64 = zip64
            entries[entries.count - 1] = (entry, zeros, crc)
            return ZipWriter.archive(entries)
        }
        // Stored, not deflated: 100,000 nested elements compress past the 100:1 bomb ratio, which would stop them
        // before the nesting cap is met.
        var nested = WordFile.entries(
            body: String(repeating: "<w:sdt>", count: 100_000) + String(repeating: "</w:sdt>", count: 100_000))
        nested[nested.count - 1].deflate = false
        let deep = ZipWriter.archive(nested)
        var random = SplitMix64(seed: 27)
        return [
            "bomb.docx": bomb(declared: 100 << 20, zip64: false),
            "bomb64.docx": bomb(declared: 5 << 30, zip64: true),
            "lying.docx": bomb(declared: 4096, zip64: false),
            "laughs.docx": WordFile.bytes(
                body: "<w:p><w:r><w:t>&j;</w:t></w:r></w:p>", prolog: HostileContainerTests.laughs),
            "deep.docx": deep,
            "disguised.docx": Array("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8),
            "random.pdf": (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) },
        ]
    }

    @Test("each hostile file is one warning naming it, the good ones are indexed, nothing local leaks, exit 0")
    func oneRun() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let notes = folder.path + "/notes"
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
        let secret = folder.path + "/secret.txt"
        try Self.marker.write(toFile: secret, atomically: true, encoding: .utf8)
        let hostile = Self.hostile()
        var files = hostile
        files["good.docx"] = WordFile.bytes(body: "<w:p><w:r><w:t>Quarterly harvest of figs</w:t></w:r></w:p>")
        files["xxe.docx"] = WordFile.bytes(
            body: "<w:p><w:r><w:t>entity &x; here</w:t></w:r></w:p>",
            prolog: "<?xml version=\"1.0\"?><!DOCTYPE w:document [<!ENTITY x SYSTEM \"file://\(secret)\">]>")
        files["plot.ipynb"] = try NotebookExtractorTests.plotted(megabytes: 50)
        files["good.md"] = Array("# Orchard\n\nPruning the apricot trees in February.\n".utf8)
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: notes + "/" + name)) }

        let index = folder.path + "/index.sqlite"
        let environment = ["OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": index]
        let run = try await runBinary(["index", notes], environment: environment)
        #expect(run.status == 0, "\(run.error)")
        let warnings = run.error.split(separator: "\n").filter { $0.hasPrefix("warning: skipped ") }
        for name in hostile.keys {
            #expect(warnings.filter { $0.hasPrefix("warning: skipped \(name): damaged — ") }.count == 1, "\(name): \(run.error)")
        }
        #expect(warnings.contains { $0.hasPrefix("warning: skipped deep.docx: damaged — word/document.xml nests") })
        #expect(warnings.count == hostile.count, "\(run.error)")
        #expect(run.output.contains("4 new, 0 changed, 0 unchanged, 0 removed, 7 skipped ("), "\(run.output)")

        for (query, path) in [("harvest", "good.docx"), ("apricot", "good.md"), ("Figure", "plot.ipynb"), ("entity", "xxe.docx")] {
            let search = try await runBinary(["search", "--mode", "keyword", "--json", query], environment: environment)
            #expect(search.output.contains("\(notes)/\(path)"), "\(query): \(search.output) \(search.error)")
        }
        // The entity's file was never read: not in any hit, nor anywhere in the index's files.
        let leaked = try await runBinary(["search", "--mode", "keyword", Self.marker], environment: environment)
        #expect(!leaked.output.contains(Self.marker))
        for file in [index, index + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(Self.marker.utf8)) == nil, "\(file) holds the secret")
        }
        // The 50 MB plot output stayed out: the notebook's passages are its cells and the plot's text form.
        let plot = try await runBinary(["get", notes + "/plot.ipynb"], environment: environment)
        #expect(plot.output.utf8.count < 4096 && plot.output.contains("<Figure>"), "\(plot.output.prefix(300))")
    }
}
