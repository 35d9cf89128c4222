import Foundation
import Testing
import TroveIngest
import TroveTestSupport

@testable import TroveExtract

@Suite struct HTMLExtractorTests {
    /// `Fixtures/<format>/NAME`'s bytes (provenance in each folder's SOURCES.md).
    static func fixture(_ format: String, _ name: String) throws -> [UInt8] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        return try [UInt8](Data(contentsOf: folder.appendingPathComponent(format).appendingPathComponent(name)))
    }

    static func extract(_ html: String, limits: ExtractionLimits = ExtractionLimits()) throws -> ExtractedDocument {
        try HTMLExtractor.extract(Array(html.utf8), limits: limits)
    }

    @Test func sqliteDocPagesBecomeTextWithTheirHeadings() throws {
        let document = try HTMLExtractor.extract(try Self.fixture("html", "dbpage.html"), limits: ExtractionLimits())
        let text = document.lines.joined(separator: "\n")
        #expect(document.extractor.hasPrefix("html/libxml2 2."))
        #expect(document.lines.first == "The SQLITE_DBPAGE Virtual Table")
        #expect(
            document.headings.map(\.path) == [
                ["The SQLITE_DBPAGE Virtual Table"], ["1. Overview"], ["2. Usage"],
                ["2. Usage", "2.1. Using SQLITE_DBPAGE On ATTACH-ed Databases"],
            ])
        #expect(text.contains("The SQLITE_DBPAGE extension implements an eponymous-only virtual table"))
        // Neither markup nor the page's script (its search box) is indexed.
        #expect(!text.contains("<"))
        #expect(!text.contains("function "))
        #expect(document.encoding == nil)  // it declares UTF-8
    }

    @Test func aPageIsReadInTheWorkerAsTheIndexerReadsIt() async throws {
        let service = WorkerTests.service()
        defer { service.shutdown() }
        let page = try Self.fixture("html", "shortnames.html")
        let result = try await WorkerTests.extract(page, as: .html, with: service)
        let document = try result.get()
        #expect(document.lines.first == "8+3 Filenames")
        #expect(document.extractor == HTMLExtractor.identity)
    }

    @Test("every real page reads without markup", arguments: ["shortnames.html", "lockingv3.html", "datatype3.html"])
    func realPages(name: String) throws {
        let bytes = try Self.fixture("html", name)
        let document = try HTMLExtractor.extract(bytes, limits: ExtractionLimits())
        let text = document.lines.joined(separator: "\n")
        #expect(!document.headings.isEmpty)
        #expect(!text.contains("</"))
        #expect(!text.contains("&lt;") && !text.contains("&amp;"))
        // Every heading's line is in the text.
        for heading in document.headings where heading.line < document.lines.count {
            #expect(document.lines[heading.line] == heading.path.last)
        }
    }

    @Test func tablesListsAndPreformattedTextKeepTheirShape() throws {
        let document = try Self.extract(
            """
            <html><head><title>Guide</title><style>p { color: red }</style><script>var secret = 1;</script></head>
            <body><h1>Install</h1><p>Run   the
            <b>installer</b>&nbsp;now &amp; wait.</p>
            <ul><li>one<li>two <i>items</i></ul>
            <table><tr><th>key<th>value<tr><td>a<td>1</table>
            <pre>
            let x = 1
              indented
            </pre>
            <noscript>enable scripts</noscript><template>hidden</template>
            <h2>From source</h2><p>line<br>break</p><h3>Deep</h3><h2>Binary</h2><p>end</p></body></html>
            """)
        #expect(
            document.lines == [
                "Guide", "", "Install", "", "Run the installer now & wait.", "", "- one", "- two items", "",
                "key | value", "a | 1", "", "let x = 1", "  indented", "", "From source", "", "line", "break", "",
                "Deep", "", "Binary", "", "end",
            ])
        #expect(
            document.headings == [
                .init(line: 0, path: ["Guide"]), .init(line: 2, path: ["Install"]),
                .init(line: 15, path: ["Install", "From source"]),
                .init(line: 20, path: ["Install", "From source", "Deep"]),
                .init(line: 22, path: ["Install", "Binary"]),
            ])
        #expect(document.boundaries.isEmpty && document.locators.isEmpty)
    }

    @Test func theDeclaredCharsetIsHonoured() throws {
        // "café crème" in Windows-1252, declared by the page, and the same bytes declared by a mail part instead.
        let body: [UInt8] = Array("<p>caf".utf8) + [0xE9] + Array(" cr".utf8) + [0xE8] + Array("me</p>".utf8)
        let declared = Array(#"<html><head><meta charset="windows-1252"></head><body>"#.utf8) + body
        let page = try HTMLExtractor.extract(declared, limits: ExtractionLimits())
        #expect(page.lines == ["café crème"])
        // A byte Windows-1252 leaves undefined (0x81) becomes U+FFFD; it does not end the page there.
        let odd = try HTMLExtractor.extract(declared + [0x81] + Array("<p>after</p>".utf8), limits: ExtractionLimits())
        #expect(odd.lines == ["café crème", "", "\u{FFFD}", "", "after"])
        // Undeclared and not UTF-8: detected; declared UTF-8 but not: U+FFFD, not a guess.
        let detected = try HTMLExtractor.extract(body, limits: ExtractionLimits())
        #expect(detected.lines == ["café crème"] && detected.encoding != nil)
        let utf8 = Array(#"<meta charset="utf-8">"#.utf8) + body
        #expect(try HTMLExtractor.extract(utf8, limits: ExtractionLimits()).lines == ["caf\u{FFFD} cr\u{FFFD}me"])
        // Shift_JIS declared by an http-equiv content type (the older spelling).
        let japanese = Array(#"<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>"#.utf8)
            + [0x93, 0xFA, 0x96, 0x7B, 0x8C, 0xEA]
        let shiftJIS = try HTMLExtractor.extract(japanese, limits: ExtractionLimits())
        #expect(shiftJIS.lines == ["日本語"] && shiftJIS.encoding == "shift_jis")
        #expect(page.encoding == "windows-1252")
        let part = try HTMLExtractor.extract(body, charset: "iso-8859-1", limits: ExtractionLimits())
        #expect(part.lines == ["café crème"])
        let plain = Array("<p>plain</p>".utf8)
        let unknown = try HTMLExtractor.extract(plain, charset: "x-no-such", limits: ExtractionLimits())
        #expect(unknown.lines == ["plain"])
    }

    @Test func xhtmlWithAnXMLDeclarationAndNamespaceReads() throws {
        let document = try Self.extract(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
            <head><title>Chapter 1</title></head>
            <body><section epub:type="chapter"><h1>Live systems</h1><p>A <em>live system</em> boots.</p>
            <p><![CDATA[raw & ready]]></p></section></body></html>
            """)
        #expect(document.lines.contains("A live system boots."))
        #expect(document.headings.map(\.path).contains(["Live systems"]))
    }

    @Test func entityDeclarationsAreNeverExpandedNorFilesRead() throws {
        let folder = try TemporaryDirectory()
        let secret = folder.path + "/secret.txt"
        try "TOP-SECRET-MARKER".write(toFile: secret, atomically: true, encoding: .utf8)
        let xxe = try Self.extract(
            """
            <!DOCTYPE html [<!ENTITY xxe SYSTEM "file://\(secret)">]>
            <html><body><p>before &xxe; after</p></body></html>
            """)
        #expect(!xxe.lines.joined().contains("TOP-SECRET-MARKER"))
        var laughs = "<!DOCTYPE html [<!ENTITY lol \"lol\">"
        for level in 1...9 {
            let inner = "&lol\(level == 1 ? "" : String(level - 1));"
            laughs += "<!ENTITY lol\(level) \"" + String(repeating: inner, count: 10) + "\">"
        }
        laughs += "]><html><body><p>&lol9;</p></body></html>"
        let bomb = try Self.extract(laughs)
        #expect(bomb.lines.joined().utf8.count < 1_000)
    }

    @Test func nestingPastTheLimitIsRefusedByName() throws {
        let deep = String(repeating: "<div>", count: 100_000) + "x" + String(repeating: "</div>", count: 100_000)
        #expect(throws: ExtractionFailure(.damaged, "html elements nested deeper than 256")) {
            try Self.extract(deep)
        }
        // The text before the deep part would survive in libxml2's tree, the rest would not: refused whole.
        #expect(throws: ExtractionFailure.self) { try Self.extract("<p>before</p>" + deep + "<p>after</p>") }
        let shallow = String(repeating: "<div>", count: 200) + "x" + String(repeating: "</div>", count: 200)
        #expect(try Self.extract(shallow).lines == ["x"])
    }

    @Test func emptyGarbageAndHugeInputEndCleanly() throws {
        #expect(try HTMLExtractor.extract([], limits: ExtractionLimits()).lines.isEmpty)
        #expect(try Self.extract(" \n\t").lines.isEmpty)
        var random = SplitMix64(seed: 27)
        for _ in 0..<50 {
            let bytes = (0..<Int(random.next() % 4096)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            do {
                _ = try HTMLExtractor.extract(bytes, limits: ExtractionLimits())
            } catch {
                #expect(error.kind == .damaged)
            }
        }
        var small = ExtractionLimits()
        small.maxInputBytes = 10
        #expect(throws: ExtractionFailure(.damaged, "larger than 10 bytes")) {
            try Self.extract("<p>eleven bytes</p>", limits: small)
        }
        small = ExtractionLimits()
        small.maxOutputBytes = 100
        #expect(throws: ExtractionFailure.self) {
            try Self.extract("<p>" + String(repeating: "word ", count: 100) + "</p>", limits: small)
        }
    }
}
