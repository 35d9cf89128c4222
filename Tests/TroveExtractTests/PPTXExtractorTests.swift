import Testing
import TroveIngest

@testable import TroveExtract

@Suite struct PPTXExtractorTests {
    @Test func titleSlideOfARealDeck() throws {
        let document = try PPTXExtractor.extract(try fixture("pptx/test.pptx"), limits: ExtractionLimits())
        #expect(document.lines == ["Presentation Title Text", "", "Subtitle Text"])
        #expect(document.headings == [.init(line: 0, path: ["Presentation Title Text"])])
        #expect(document.locators == [.init(line: 0, kind: .slide, number: 1)])
        #expect(document.extractor == "pptx")
    }

    @Test func eachSlideIsABoundaryAndTablesAreRows() throws {
        let document = try PPTXExtractor.extract(try fixture("pptx/tbl-cell.pptx"), limits: ExtractionLimits())
        #expect(document.locators.map(\.number) == [1, 2, 3])
        #expect(document.boundaries == document.locators.map(\.line))
        #expect(document.headings.map(\.path) == [["Slide 1"], ["Slide 2"], ["Slide 3"]])
        #expect(document.lines.suffix(3) == ["a | b | c", "d | e | f", "g | h | i"])
    }

    @Test func speakerNotesFollowTheirSlide() throws {
        let document = try PPTXExtractor.extract(try fixture("pptx/prs-notes.pptx"), limits: ExtractionLimits())
        #expect(document.lines == ["Notes"])
        #expect(document.headings == [.init(line: 0, path: ["Slide 1", "Notes"])])
    }

    @Test func slidesFollowThePresentationsOrderNotTheirFileNames() throws {
        let document = try PPTXExtractor.extract(SlideDeck.bytes(), limits: ExtractionLimits())
        #expect(document.lines == [
            "Why", "", "Because it is fast.", "Second line", "", "Speaker: mention the benchmark.", "",
            "How", "", "Use the index.",
        ])
        #expect(document.headings.map(\.path) == [["Why"], ["Why", "Notes"], ["How"]])
        #expect(document.locators.map(\.number) == [1, 2])
        #expect(document.locators.map(\.line) == [0, 7])
    }
}

/// A two-slide deck written for a test: slide2.xml is shown first, slide 1 (shown second) has a slide-number
/// placeholder, and the first has speaker notes.
enum SlideDeck {
    static let relationships = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    static let namespaces = """
        xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" \
        xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" \
        xmlns:r="\(relationships)"
        """

    static func shape(_ placeholder: String?, _ paragraphs: [String]) -> String {
        let ph = placeholder.map { "<p:nvSpPr><p:nvPr><p:ph type=\"\($0)\"/></p:nvPr></p:nvSpPr>" } ?? ""
        let body = paragraphs.map { "<a:p><a:r><a:t>\($0)</a:t></a:r></a:p>" }.joined()
        return "<p:sp>\(ph)<p:txBody>\(body)</p:txBody></p:sp>"
    }

    static func slide(_ shapes: String) -> String {
        "<p:sld \(namespaces)><p:cSld><p:spTree>\(shapes)</p:spTree></p:cSld></p:sld>"
    }

    static func bytes() -> [UInt8] {
        ZipWriter.archive([
            .init("_rels/.rels", """
                <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
                <Relationship Id="r1" Type="\(relationships)/officeDocument" Target="ppt/presentation.xml"/>\
                </Relationships>
                """),
            .init("ppt/presentation.xml", """
                <p:presentation \(namespaces)><p:sldIdLst><p:sldId id="256" r:id="rId7"/>\
                <p:sldId id="257" r:id="rId3"/></p:sldIdLst></p:presentation>
                """),
            .init("ppt/_rels/presentation.xml.rels", """
                <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
                <Relationship Id="rId3" Type="\(relationships)/slide" Target="slides/slide1.xml"/>\
                <Relationship Id="rId7" Type="\(relationships)/slide" Target="/ppt/slides/slide2.xml"/>\
                </Relationships>
                """),
            .init("ppt/slides/slide1.xml", slide(
                shape("body", ["Use the index."]) + shape("sldNum", ["2"]) + shape("title", ["How"]))),
            .init("ppt/slides/slide2.xml", slide(
                shape("title", ["Why"]) + "<p:sp><p:txBody><a:p><a:r><a:t>Because it is fast.</a:t></a:r><a:br/>"
                    + "<a:r><a:t>Second line</a:t></a:r></a:p></p:txBody></p:sp>")),
            .init("ppt/slides/_rels/slide2.xml.rels", """
                <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
                <Relationship Id="rId2" Type="\(relationships)/notesSlide" Target="../notesSlides/notesSlide1.xml"/>\
                </Relationships>
                """),
            .init("ppt/notesSlides/notesSlide1.xml", """
                <p:notes \(namespaces)><p:cSld><p:spTree>\(shape("sldImg", []))\
                \(shape("body", ["Speaker: mention the benchmark."]))\(shape("sldNum", ["1"]))</p:spTree></p:cSld>\
                </p:notes>
                """),
        ])
    }
}
