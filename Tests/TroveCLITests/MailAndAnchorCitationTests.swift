import Foundation
import Testing
import TroveKit
import TroveTestSupport
import TroveTestTraits

@testable import TroveCLI

/// A big mailbox indexed whole, and hits in a web page that link to their section, through the built `trove` worker.
@Suite(
    "A 10,000-message mbox is indexed; an HTML hit's uri names its heading's id", .offCooperativePool,
    .enabled(if: FileManager.default.isExecutableFile(atPath: builtProduct("trove")), "needs the built trove"))
struct MailAndAnchorCitationTests {
    @Test("every message of a generated 10,000-message mbox is indexed with its msg locator, no warning")
    func bigMailbox() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let messages = (1...10_000).map { number in
            "From list@example.org Tue Dec  1 10:00:00 2026\nFrom: member\(number % 37)@example.org\n"
                + "Subject: harvest report \(number)\nDate: Tue, 1 Dec 2026 10:00:00 +0000\n\n"
                + "Row \(number) gave \(number % 11) baskets of quince.\n"
        }
        _ = try folder.write("mail/list.mbox", messages.joined())
        let index = folder.path + "/i.sqlite"
        let run = await trove(["index", folder.path + "/mail"], index: index, server: server)
        #expect(run.status == 0, "\(run.error)")
        #expect(!run.error.contains("warning"), "\(run.error)")
        let json = await trove(
            ["search", "--mode", "keyword", "--json", "-n", "1", "Row 9876 gave"], index: index, server: server)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let first = try #require((decoded?["hits"] as? [[String: Any]])?.first)
        #expect(first["uri"] as? String == "file://\(folder.path)/mail/list.mbox#msg=9876")
        let last = await trove(["get", folder.path + "/mail/list.mbox#msg=10000"], index: index, server: server)
        #expect(last.output.contains("Row 10000 gave 1 baskets of quince."), "\(last.output)")
    }

    @Test("a hit in a sqlite3-doc page links to the anchor before its heading (page.html#hot_journals)")
    func htmlAnchors() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/web", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: repositoryRoot + "/Tests/TroveExtractTests/Fixtures/html/lockingv3.html",
            toPath: folder.path + "/web/lockingv3.html")
        _ = try folder.write("web/notes.md", "# Notes\n\nA hot journal is rolled back.\n")
        let index = folder.path + "/i.sqlite"
        let run = await trove(["index", folder.path + "/web"], index: index, server: server)
        #expect(run.status == 0, "\(run.error)")
        let json = await trove(
            ["search", "--mode", "keyword", "--json", "-n", "10", "hot journal"], index: index, server: server)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let hits = try #require(decoded?["hits"] as? [[String: Any]])
        let uris = hits.compactMap { $0["uri"] as? String }
        let page = "file://\(folder.path)/web/lockingv3.html"
        #expect(uris.contains(page + "#hot_journals"), "\(uris)")
        // A text file's hit names no section.
        #expect(uris.contains("file://\(folder.path)/web/notes.md"), "\(uris)")
    }
}
