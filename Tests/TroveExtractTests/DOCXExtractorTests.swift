import Testing
import TroveIngest

@testable import TroveExtract

@Suite struct DOCXExtractorTests {
    @Test func headingsComeFromStyleNamesNotStyleIds() throws {
        let document = try DOCXExtractor.extract(try fixture("docx/par-known-styles.docx"), limits: ExtractionLimits())
        #expect(document.lines == ["no specified style", "", "missing style", "", "Heading 1", "", "Body Text"])
        #expect(document.headings == [.init(line: 4, path: ["Heading 1"])])
        #expect(document.locators.isEmpty)  // never laid out by Word: no page is claimed
        #expect(document.extractor == "docx")
    }

    @Test func wordsLastLayoutGivesApproximatePages() throws {
        let document = try DOCXExtractor.extract(
            try fixture("docx/par-rendered-page-breaks.docx"), limits: ExtractionLimits())
        #expect(document.locators.first == .init(line: 0, kind: .page, number: 1, approximate: true))
        #expect(document.locators.filter { !$0.approximate }.isEmpty)
        #expect(document.locators.map(\.number) == Array(1...document.locators.count))
        #expect(document.boundaries == document.locators.map(\.line))
        // The text on either side of each break is on its own line, in its own page.
        let page2 = try #require(document.locators.dropFirst().first)
        #expect(document.lines[page2.line].hasPrefix("<<followed by more text."))
    }

    @Test func nestedTablesFlattenIntoTheirCell() throws {
        let document = try DOCXExtractor.extract(
            try fixture("docx/blk-paras-and-tables.docx"), limits: ExtractionLimits())
        #expect(document.lines.contains("Lorem ipsum dolor sit amet, consectetur adipiscing elit."))
        #expect(document.lines.contains("Text before Table Between Text after"))
    }

    @Test func writtenDocumentWithTitleHeadingsTableAndNotes() throws {
        let document = try DOCXExtractor.extract(WordFile.bytes(body: """
            <w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>The Report</w:t></w:r></w:p>
            <w:p><w:pPr><w:pStyle w:val="Berschrift1"/></w:pPr><w:r><w:t>Results</w:t></w:r></w:p>
            <w:p><w:r><w:t xml:space="preserve">Yields rose </w:t></w:r><w:r><w:footnoteReference w:id="2"/></w:r>\
            <w:r><w:t>.</w:t></w:r></w:p>
            <w:tbl><w:tr><w:tc><w:p><w:r><w:t>crop</w:t></w:r></w:p></w:tc>\
            <w:tc><w:p><w:r><w:t>yield</w:t></w:r></w:p></w:tc></w:tr>
            <w:tr><w:tc><w:p><w:r><w:t>wheat</w:t></w:r></w:p></w:tc>\
            <w:tc><w:p><w:r><w:t>7.1</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
            <w:p><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:r><w:t>Method</w:t></w:r></w:p>
            <w:p><w:r><w:t>Plots</w:t></w:r><w:r><w:tab/><w:t>and</w:t><w:br/><w:t>fields</w:t></w:r>\
            <w:del><w:r><w:delText>deleted</w:delText></w:r></w:del><w:r><w:instrText>PAGE</w:instrText></w:r></w:p>
            <mc:AlternateContent><mc:Choice Requires="wps"><w:p><w:r><w:t>boxed</w:t></w:r></w:p></mc:Choice>\
            <mc:Fallback><w:p><w:r><w:t>boxed</w:t></w:r></w:p></mc:Fallback></mc:AlternateContent>
            """), limits: ExtractionLimits())
        #expect(document.lines == [
            "The Report", "", "Results", "", "Yields rose [1].", "[1] Measured in 2024.", "", "crop | yield",
            "wheat | 7.1", "", "Method", "", "Plots and", "fields", "", "boxed",
        ])
        #expect(document.headings == [
            .init(line: 0, path: ["The Report"]), .init(line: 2, path: ["The Report", "Results"]),
            .init(line: 10, path: ["The Report", "Results", "Method"]),
        ])
    }
}

/// A minimal Word document written for a test: the package relationships, a styles part naming Title and a
/// localized Heading 1 (id `Berschrift1`, name `heading 1`, as German Word writes it), a footnote, and `body`.
enum WordFile {
    static let namespaces = """
        xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" \
        xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"
        """

    static func bytes(body: String, prolog: String = "") -> [UInt8] {
        ZipWriter.archive(entries(body: body, prolog: prolog))
    }

    static func entries(body: String, prolog: String = "") -> [ZipWriter.Entry] {
        let relationships = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
        return [
            .init("_rels/.rels", """
                <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
                <Relationship Id="rId1" Type="\(relationships)/officeDocument" Target="word/document.xml"/>\
                </Relationships>
                """),
            .init("word/_rels/document.xml.rels", """
                <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
                <Relationship Id="rId1" Type="\(relationships)/styles" Target="styles.xml"/>\
                <Relationship Id="rId2" Type="\(relationships)/footnotes" Target="footnotes.xml"/>\
                <Relationship Id="rId3" Type="\(relationships)/hyperlink" Target="https://example.com" \
                TargetMode="External"/></Relationships>
                """),
            .init("word/styles.xml", """
                <w:styles \(namespaces)><w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/>\
                </w:style><w:style w:type="paragraph" w:styleId="Berschrift1"><w:name w:val="heading 1"/></w:style>\
                </w:styles>
                """),
            .init("word/footnotes.xml", """
                <w:footnotes \(namespaces)><w:footnote w:type="separator" w:id="0"><w:p><w:r><w:separator/></w:r>\
                </w:p></w:footnote><w:footnote w:id="2"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space=\
                "preserve"> Measured in 2024.</w:t></w:r></w:p></w:footnote></w:footnotes>
                """),
            .init("word/document.xml", """
                \(prolog)<w:document \(namespaces)><w:body>\(body)</w:body></w:document>
                """),
        ]
    }
}
