import Testing
import TroveIngest

@testable import TroveExtract

@Suite struct DocumentBuilderTests {
    @Test func marksSectionsBoundariesAndLocatorsAtTheNextLine() throws {
        var builder = DocumentBuilder(extractor: "test", limits: ExtractionLimits())
        try builder.boundary(.page, number: 1)
        builder.heading(["Intro"])
        try builder.line("Intro")
        try builder.line("first\r\nsecond")
        builder.blankLine()
        builder.blankLine()
        try builder.boundary(.page, number: 2)
        try builder.line("third")
        builder.blankLine()
        let document = builder.finish()
        #expect(document.lines == ["Intro", "first", "second", "", "third"])
        #expect(document.headings == [.init(line: 0, path: ["Intro"])])
        #expect(document.boundaries == [0, 4])
        #expect(document.locators.map(\.number) == [1, 2])
        #expect(document.locators.map(\.line) == [0, 4])
    }

    @Test func appendedDocumentsNestTheirSectionsAndShiftTheirMarks() throws {
        var chapter = DocumentBuilder(extractor: "html", limits: ExtractionLimits())
        try chapter.line("preface")
        chapter.heading(["Keys"])
        try chapter.line("Keys")
        var book = DocumentBuilder(extractor: "epub", limits: ExtractionLimits())
        try book.line("title page")
        book.boundary()
        try book.append(chapter.finish(), under: ["Chapter 1"])
        let document = book.finish()
        #expect(document.lines == ["title page", "preface", "Keys"])
        #expect(document.boundaries == [1])
        #expect(document.headings == [.init(line: 1, path: ["Chapter 1"]), .init(line: 2, path: ["Chapter 1", "Keys"])])
    }

    @Test func capsTheTextAndTheParts() throws {
        var limits = ExtractionLimits()
        limits.maxOutputBytes = 10
        limits.maxParts = 1
        var builder = DocumentBuilder(extractor: "test", limits: limits)
        try builder.boundary(.slide, number: 1)
        #expect(throws: ExtractionFailure(.damaged, "more than 1 slides")) { try builder.boundary(.slide, number: 2) }
        try builder.line("12345")
        #expect(throws: ExtractionFailure.self) { try builder.line("123456") }
    }
}
