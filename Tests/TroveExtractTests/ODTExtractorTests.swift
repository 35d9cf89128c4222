import Testing
import TroveIngest

@testable import TroveExtract

@Suite struct ODTExtractorTests {
    @Test func realFilesTablesListsAndHeadings() throws {
        let table = try ODTExtractor.extract(try fixture("odt/simpletable.odt"), limits: ExtractionLimits())
        #expect(table.lines == ["Cell 1 | Cell 2", "Cell 3 (bold) | Cell 4 (italic)"])
        let list = try ODTExtractor.extract(try fixture("odt/twolevellist.odt"), limits: ExtractionLimits())
        #expect(list.lines.filter { !$0.isEmpty } == [
            "Line 1", "Item A", "Item B", "Subitem B.1", "Subitem B.2 (bold)", "Item C", "Line 4",
        ])
        let heading = try ODTExtractor.extract(try fixture("odt/headerfooter.odt"), limits: ExtractionLimits())
        #expect(heading.headings == [.init(line: 0, path: ["Lorem ipsum"])])
        #expect(heading.extractor == "odt")
        // Spaces (`text:s`) and line breaks inside one paragraph: one block of four lines.
        let poem = try ODTExtractor.extract(try fixture("odt/serious_poem.odt"), limits: ExtractionLimits())
        #expect(poem.lines == [
            "The boy stood    on the burning deck,", "Whence all but  him had fled.",
            "The flames   that lit the battle's wreck,", "Shone o'er him, round the dead.",
        ])
    }

    @Test func outlineLevelsNotesAndSoftPageBreaks() throws {
        let document = try ODTExtractor.extract(OpenDocument.bytes(body: """
            <text:h text:outline-level="1">Install</text:h>
            <text:p>Run<text:s text:c="2"/>the<text:tab/>script<text:note text:note-class="footnote">\
            <text:note-citation>1</text:note-citation><text:note-body><text:p>As root.</text:p></text:note-body>\
            </text:note>.</text:p>
            <text:tracked-changes><text:changed-region><text:deletion><text:p>gone</text:p></text:deletion>\
            </text:changed-region></text:tracked-changes>
            <text:soft-page-break/>
            <text:h text:outline-level="2">From source</text:h>
            <text:p>Build it<office:annotation><text:p>a comment</text:p></office:annotation> first.</text:p>
            <text:table-of-content><text:index-body><text:p>Install 1</text:p></text:index-body></text:table-of-content>
            <text:h text:outline-level="1">Use</text:h>
            <text:p>Split<text:soft-page-break/> paragraph.</text:p>
            """), limits: ExtractionLimits())
        #expect(document.lines == [
            "Install", "", "Run  the script[1].", "[1] As root.", "", "From source", "", "Build it first.", "",
            "Use", "", "Split", "paragraph.",
        ])
        #expect(document.headings == [
            .init(line: 0, path: ["Install"]), .init(line: 5, path: ["Install", "From source"]),
            .init(line: 9, path: ["Use"]),
        ])
        #expect(document.locators == [
            .init(line: 0, kind: .page, number: 1, approximate: true),
            .init(line: 5, kind: .page, number: 2, approximate: true),
            .init(line: 12, kind: .page, number: 3, approximate: true),
        ])
        #expect(document.boundaries == [0, 5, 12])
    }

    @Test func aDocumentNeverLaidOutClaimsNoPage() throws {
        // The words appear, the element does not (as in Debian's live-manual, written by SiSU).
        let document = try ODTExtractor.extract(OpenDocument.bytes(body: """
            <text:h text:outline-level="1">soft-page-break</text:h><text:p>No layout was saved.</text:p>
            """), limits: ExtractionLimits())
        #expect(document.lines == ["soft-page-break", "", "No layout was saved."])
        #expect(document.locators.isEmpty)
        #expect(document.boundaries.isEmpty)
    }

    @Test func aPasswordProtectedDocumentIsEncrypted() {
        var entries = OpenDocument.entries(body: "<text:p>ciphertext in reality</text:p>")
        entries.append(.init("META-INF/manifest.xml", """
            <manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">\
            <manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry>\
            </manifest:manifest>
            """))
        #expect(throws: ExtractionFailure(.encrypted, "the document is password-protected")) {
            try ODTExtractor.extract(ZipWriter.archive(entries), limits: ExtractionLimits())
        }
    }
}

/// A minimal OpenDocument text written for a test.
enum OpenDocument {
    static func bytes(body: String, prolog: String = "") -> [UInt8] {
        ZipWriter.archive(entries(body: body, prolog: prolog))
    }

    static func entries(body: String, prolog: String = "") -> [ZipWriter.Entry] {
        [
            .init("mimetype", "application/vnd.oasis.opendocument.text", deflate: false),
            .init("content.xml", """
                \(prolog)<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" \
                xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" \
                xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:body><office:text>\
                \(body)</office:text></office:body></office:document-content>
                """),
        ]
    }
}
