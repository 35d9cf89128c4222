import Foundation
import Testing
@testable import TroveCLI
import TroveKit
import TroveStore
import TroveTestSupport

@Suite("trove forget, trove vacuum, and what trove index prints")
struct IndexingCommandTests {
    @Test("forget removes a folder with its documents; vacuum then really shrinks the file")
    func forgetAndVacuum() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let index = folder.path + "/i.sqlite"
        for number in 0..<150 {
            let body = (0..<40).map { "line \($0) of note \(number) about topic \(number * 31 + $0)" }
            _ = try folder.write("big/n\(number).md", "# Note \(number)\n\n" + body.joined(separator: "\n") + "\n")
        }
        _ = try folder.write("small/keep.md", "# Keep\n\nthis stays\n")
        #expect(await trove(["index", folder.path + "/big", folder.path + "/small"], index: index, server: server).status == 0)

        let forget = await trove(["forget", folder.path + "/big/"], index: index, server: server)
        #expect(forget.status == 0)
        let chunks = try #require(forget.output.split(separator: " ").dropLast().last)
        #expect(forget.output == "forgot \(folder.path)/big: 150 documents, \(chunks) chunks\n")
        let store = try SQLiteStore(path: index, createIfMissing: false)
        #expect(try store.roots().map(\.path) == [folder.path + "/small"])
        #expect(try store.statistics().documents == 1)
        #expect(try store.integrityCheck() == "ok")

        let missing = await trove(["forget", folder.path + "/nowhere"], index: index, server: server)
        #expect(missing.status == 1)
        #expect(missing.error == "Error: index \(index) has no folder \(folder.path)/nowhere — trove status lists its folders\n")

        try store.checkpoint()
        let before = fileSize(index)
        let vacuum = await trove(["vacuum"], index: index, server: server)
        #expect(vacuum.status == 0)
        #expect(vacuum.output.hasPrefix("vacuumed \(index): "))
        let after = fileSize(index)
        #expect(after * 3 < before, "\(before) → \(after)")
        #expect(try store.integrityCheck() == "ok")
        let search = await trove(["search", "--json", "stays"], index: index, server: server)
        #expect(search.output.contains("keep.md"))
    }

    @Test("--verbose logs one line per document; --quiet prints nothing but the summary")
    func verboseAndQuiet() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let index = folder.path + "/i.sqlite"
        _ = try folder.write("n/a.md", "# A\n\nalpha\n\n# B\n\nbeta\n")
        _ = try folder.write("n/b.md", "# C\n\ngamma\n")
        let verbose = await trove(["index", "-v", folder.path + "/n"], index: index, server: server)
        #expect(
            verbose.error
                == "indexing \(folder.path)/n: 2 files\nnew      a.md (2 chunks, 0 reused)\nnew      b.md (1 chunks, 0 reused)\n"
        )
        try FileManager.default.removeItem(atPath: folder.path + "/n/b.md")
        _ = try folder.write("n/blob.txt", data: Data([0, 1, 2]))
        let quiet = await trove(["index", "--quiet"], index: index, server: server)
        #expect(quiet.status == 0)
        #expect(quiet.error.isEmpty)
        #expect(
            quiet.output.hasPrefix(
                "0 new, 0 changed, 1 unchanged, 1 removed, 1 skipped (1 binary); 0 chunks embedded, 0 reused, with nomic-embed-text in "
            ))
        let contradiction = await trove(["index", "-q", "-v"], index: index, server: server)
        #expect(contradiction.status == 64)
        #expect(contradiction.error.hasPrefix("Error: --quiet and --verbose contradict each other: pick one\n"))
    }

    @Test("the JSON summary carries reuse, skip reasons and retries")
    func jsonSummary() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        _ = try folder.write("n/a.md", "# A\n\nalpha\n")
        _ = try folder.write("n/copy.md", "# A\n\nalpha\n")
        server.failNextEmbeds(1, status: 503, message: "busy")
        let run = await trove(
            ["index", "--json", "--retry-base-ms", "1", folder.path + "/n"], index: folder.path + "/i.sqlite",
            server: server)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["new"] as? Int == 2)
        #expect(object["chunks_embedded"] as? Int == 1)
        #expect(object["chunks_reused"] as? Int == 1)
        #expect(object["retries"] as? Int == 1)
        #expect(object["interrupted"] as? Bool == false)
        #expect(object["skipped_reasons"] as? [String: Int] == [:])
    }

    @Test("the progress line shows files, chunks, rate and time left", arguments: [
        (50, 200, 300, 10.0, "50/200 files · 300 chunks embedded · 30 chunks/s · 0:30 left"),
        (1, 5000, 10, 2.0, "1/5000 files · 10 chunks embedded · 5 chunks/s · 2:46:38 left"),
        (0, 10, 0, 0.2, "0/10 files · 0 chunks embedded"),
        (10, 10, 40, 4.0, "10/10 files · 40 chunks embedded · 10 chunks/s"),
    ])
    func progressLine(done: Int, total: Int, chunks: Int, seconds: Double, expected: String) {
        #expect(ProgressLine.render(filesDone: done, filesTotal: total, chunksEmbedded: chunks, seconds: seconds) == expected)
    }

    @Test("on a terminal, progress is drawn on stderr and erased before the summary")
    func progressOnTerminal() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        for number in 0..<5 { _ = try folder.write("n/\(number).md", "# \(number)\n\ntext\n") }
        let error = CapturedStream(isTerminal: true)
        let output = CapturedStream()
        let status = await Launcher.run(
            ["index", "--batch", "1", folder.path + "/n"],
            console: Console(
                output: output, error: error,
                environment: ["TROVE_INDEX": folder.path + "/i.sqlite", "OLLAMA_HOST": server.baseURL.absoluteString]))
        #expect(status == 0)
        #expect(error.text.contains("\r\u{1B}[K1/5 files · 1 chunks embedded"))
        #expect(error.text.hasSuffix("\r\u{1B}[K"))
        #expect(!output.text.contains("\u{1B}"))
    }

    @Test("the summary counts each skipped file once: plain reasons, then extraction failures grouped by format")
    func skippedOnce() {
        var summary = IndexSummary()
        summary.skippedFiles = 4
        summary.skippedReasons = ["binary": 1, "encrypted": 1, "no text layer": 2]
        summary.extractionFailures = ["pdf": ["encrypted": 1, "no-text-layer": 1], "docx": ["no-text-layer": 1]]
        let text = IndexCommand.describe(summary, model: "m")
        #expect(text.contains(", 4 skipped (1 binary; 1 DOCX: 1 no text layer; 2 PDFs: 1 encrypted, 1 no text layer); "))
        #expect(!text.contains("not read"))
        summary.skippedReasons = ["encrypted": 1]
        summary.extractionFailures = ["pdf": ["encrypted": 1]]
        summary.skippedFiles = 1
        #expect(IndexCommand.describe(summary, model: "m").contains(", 1 skipped (1 PDF: 1 encrypted); "))
    }
}

/// Bytes of the file at `path`, 0 when absent.
func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
}
