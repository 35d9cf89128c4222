import Testing
import TroveIngest

@testable import TroveExtract

@Suite struct EPUBExtractorTests {
    @Test func theWholeSpineOnceEachInReadingOrder() throws {
        let document = try EPUBExtractor.extract(Book.bytes(), limits: ExtractionLimits())
        #expect(document.lines == [
            "Preface", "", "Why this book.", "", "Bake at 200 °C.", "", "Second part of the chapter.", "",
            "Chapter Two", "", "Knead the dough.",
        ])
        #expect(document.headings == [
            .init(line: 0, path: ["Preface"]), .init(line: 4, path: ["Baking"]), .init(line: 8, path: ["Chapter Two"]),
        ])
        #expect(document.boundaries == [0, 4, 8])
        #expect(document.locators.isEmpty)
        #expect(document.extractor == "epub")
    }

    @Test func aBookWithEncryptedChaptersIsEncryptedButObfuscatedFontsAreNot() throws {
        func encryption(_ algorithm: String, _ uri: String) -> ZipWriter.Entry {
            .init("META-INF/encryption.xml", """
                <encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" \
                xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod \
                Algorithm="\(algorithm)"/><enc:CipherData><enc:CipherReference URI="\(uri)"/></enc:CipherData>\
                </enc:EncryptedData></encryption>
                """)
        }
        let aes = "http://www.w3.org/2001/04/xmlenc#aes128-cbc"
        let drm = ZipWriter.archive(Book.entries() + [encryption(aes, "OEBPS/one.xhtml")])
        #expect(throws: ExtractionFailure(.encrypted, "chapter OEBPS/one.xhtml is encrypted (DRM)")) {
            try EPUBExtractor.extract(drm, limits: ExtractionLimits())
        }
        let obfuscation = "http://www.idpf.org/2008/embedding"
        let fonts = ZipWriter.archive(Book.entries() + [encryption(obfuscation, "OEBPS/font.otf")])
        #expect(try EPUBExtractor.extract(fonts, limits: ExtractionLimits()).lines.count == 11)
    }

    @Test func printPagesFromTheNavigationPageListAreLocators() throws {
        // Markers as publishers write them (`epub:type="pagebreak"`): one between paragraphs, one inside a paragraph
        // (its page starts on the line after), one page at a file's start, one roman page (left out), one whose
        // marker is missing (left out rather than placed wrongly).
        let nav = """
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body>\
            <nav epub:type="toc"><ol><li><a href="preface.xhtml">Preface</a></li>\
            <li><a href="one.xhtml">Baking</a></li></ol></nav>\
            <nav epub:type="page-list" hidden=""><ol><li><a href="preface.xhtml#pvii">vii</a></li>\
            <li><a href="preface.xhtml">1</a></li><li><a href="one.xhtml#p2">2</a></li>\
            <li><a href="one.xhtml#p3">3</a></li><li><a href="one.xhtml#gone">4</a></li>\
            <li><a href="chapters/two%20parts.xhtml#p5">5</a></li></ol></nav></body></html>
            """
        let one = Book.page("""
            <p>Bake at 200 °C.</p><span epub:type="pagebreak" id="p2" title="2"/><p>Turn the tray.</p>\
            <p>Let it cool <span epub:type="pagebreak" id="p3"/>on a rack.</p><p>Serve.</p>
            """)
        let two = Book.page("<h2 id=\"p5\">Chapter Two</h2><p>Knead the dough.</p>")
        let document = try EPUBExtractor.extract(
            Book.bytes(replacing: ["OEBPS/nav.xhtml": nav, "OEBPS/one.xhtml": one, "OEBPS/chapters/two parts.xhtml": two]),
            limits: ExtractionLimits())
        func page(of line: String) -> PassageLocator? {
            document.lines.firstIndex(of: line).flatMap { PassageLocator.covering($0...$0, in: document.locators) }
        }
        #expect(document.locators.map(\.number) == [1, 2, 3, 5])
        #expect(page(of: "Why this book.")?.label == "p.1")
        #expect(page(of: "Bake at 200 °C.")?.label == "p.1")
        #expect(page(of: "Turn the tray.")?.label == "p.2")
        #expect(page(of: "Let it cool on a rack.")?.label == "p.2")
        #expect(page(of: "Serve.")?.label == "p.3")
        #expect(page(of: "Knead the dough.")?.label == "p.5")
        // Chapters stay headings and boundaries; pages are not boundaries.
        #expect(document.boundaries.count == 3)
        #expect(document.headings.map(\.path) == [["Preface"], ["Baking"], ["Chapter Two"]])
    }

    @Test func printPagesFromAnEPUB2PageListAreLocators() throws {
        let ncx = """
            <ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap><navPoint id="n1">\
            <navLabel><text>Preface</text></navLabel><content src="preface.xhtml"/></navPoint></navMap>\
            <pageList><pageTarget id="t1" type="normal" value="11"><navLabel><text>11</text></navLabel>\
            <content src="preface.xhtml"/></pageTarget><pageTarget id="t2" type="normal" value="12">\
            <navLabel><text>12</text></navLabel><content src="one.xhtml#part-b"/></pageTarget></pageList></ncx>
            """
        var entries = Book.entries().filter { $0.name != "OEBPS/nav.xhtml" && $0.name != "OEBPS/content.opf" }
        entries.append(.init("OEBPS/toc.ncx", ncx))
        entries.append(.init("OEBPS/content.opf", """
            <package xmlns="http://www.idpf.org/2007/opf" version="2.0"><manifest>\
            <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>\
            <item id="pre" href="preface.xhtml" media-type="application/xhtml+xml"/>\
            <item id="one" href="one.xhtml" media-type="application/xhtml+xml"/></manifest>\
            <spine toc="ncx"><itemref idref="pre"/><itemref idref="one"/></spine></package>
            """))
        let document = try EPUBExtractor.extract(ZipWriter.archive(entries), limits: ExtractionLimits())
        let second = try #require(document.lines.firstIndex(of: "Second part of the chapter."))
        #expect(document.locators == [
            .init(line: 0, kind: .page, number: 11), .init(line: second, kind: .page, number: 12),
        ])
    }

    @Test func notAnEPUBIsNamed() {
        #expect(throws: damaged("no META-INF/container.xml in the zip (not an EPUB)")) {
            try EPUBExtractor.extract(ZipWriter.archive([.init("mimetype", "text/plain")]), limits: ExtractionLimits())
        }
        let noPackage = ZipWriter.archive([Book.entries()[1]])
        #expect(throws: damaged("the EPUB's container names no package file that is in the zip")) {
            try EPUBExtractor.extract(noPackage, limits: ExtractionLimits())
        }
    }
}

/// A small EPUB 3 written for a test: the spine points into files with `#fragment`s (as Debian's live-manual does),
/// names one file twice and an image page; the navigation document titles the chapter without headings.
enum Book {
    static func bytes() -> [UInt8] { ZipWriter.archive(entries()) }

    /// The book with some entries' text replaced (by entry name).
    static func bytes(replacing: [String: String]) -> [UInt8] {
        ZipWriter.archive(entries().map { entry in replacing[entry.name].map { .init(entry.name, $0) } ?? entry })
    }

    /// A content document with this body (the EPUB namespace declared, for `epub:type`).
    static func page(_ body: String) -> String {
        "<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\"><head><title>t</title>"
            + "</head><body>\(body)</body></html>"
    }

    static func entries() -> [ZipWriter.Entry] {
        return [
            .init("mimetype", "application/epub+zip", deflate: false),
            .init("META-INF/container.xml", """
                <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>\
                <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>\
                </container>
                """),
            .init("OEBPS/content.opf", """
                <package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest>\
                <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>\
                <item id="pre" href="preface.xhtml" media-type="application/xhtml+xml"/>\
                <item id="one" href="one.xhtml" media-type="application/xhtml+xml"/>\
                <item id="one-b" href="one.xhtml#part-b" media-type="application/xhtml+xml"/>\
                <item id="cover" href="cover.png" media-type="image/png"/>\
                <item id="two" href="chapters/two%20parts.xhtml" media-type="application/xhtml+xml"/></manifest>\
                <spine><itemref idref="pre"/><itemref idref="one"/><itemref idref="cover"/><itemref idref="one-b"/>\
                <itemref idref="missing"/><itemref idref="two"/></spine></package>
                """),
            .init("OEBPS/nav.xhtml", """
                <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body>\
                <nav epub:type="toc"><ol><li><a href="preface.xhtml">Preface</a></li><li><a href="one.xhtml#top">\
                Baking</a></li><li><a href="chapters/two%20parts.xhtml">Two</a></li></ol></nav></body></html>
                """),
            .init("OEBPS/preface.xhtml", page("<h1>Preface</h1><p>Why this book.</p>")),
            .init("OEBPS/one.xhtml", page(
                "<p id=\"top\">Bake at 200 °C.</p><p id=\"part-b\">Second part of the chapter.</p>")),
            .init("OEBPS/cover.png", bytes: [0x89, 0x50, 0x4E, 0x47]),
            .init("OEBPS/chapters/two parts.xhtml", page("<h2>Chapter Two</h2><p>Knead the dough.</p>")),
        ]
    }
}
