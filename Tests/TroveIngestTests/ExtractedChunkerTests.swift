import Testing

@testable import TroveIngest

/// The chunker over an `ExtractedDocument`: structure given by the extractor, hard boundaries never packed across.
struct ExtractedChunkerTests {
    /// A document of `pages` pages of `linesPerPage` short lines each, with a page boundary and locator per page.
    func pagedDocument(pages: Int, linesPerPage: Int, headings: [ExtractedDocument.Heading] = []) -> ExtractedDocument {
        var lines: [String] = []
        var boundaries: [Int] = []
        var locators: [ExtractedDocument.Locator] = []
        for page in 1...pages {
            boundaries.append(lines.count)
            locators.append(ExtractedDocument.Locator(line: lines.count, kind: .page, number: page))
            for line in 1...linesPerPage { lines.append("Page \(page) sentence \(line) about the harbour.") }
            lines.append("")
        }
        return ExtractedDocument(
            lines: lines, headings: headings, boundaries: boundaries, locators: locators, extractor: "test")
    }

    @Test("no chunk spans a page boundary, and each carries its page")
    func pagesAreHardBoundaries() {
        let document = pagedDocument(pages: 5, linesPerPage: 3)
        let chunks = Chunker().chunks(of: document)
        checkInvariants(chunks, of: document.lines.joined(separator: "\n"), maxTokens: 400)
        // Five short pages would fit one 400-token chunk; the boundaries make five.
        #expect(chunks.count == 5)
        #expect(chunks.map(\.locator) == (1...5).map { PassageLocator(kind: .page, first: $0, last: $0) })
        #expect(chunks.map(\.startLine) == [1, 5, 9, 13, 17])
        #expect(chunks[1].text.hasPrefix("Page 2 sentence 1"))
    }

    @Test("a long page splits into several chunks with overlap inside the page, never across it")
    func longPagesSplitWithinThemselves() {
        let document = pagedDocument(pages: 3, linesPerPage: 40)
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 120, overlap: 0.15)).chunks(of: document)
        checkInvariants(chunks, of: document.lines.joined(separator: "\n"), maxTokens: 120)
        #expect(chunks.count > 6)
        for chunk in chunks {
            let page = chunk.locator!.first
            #expect(chunk.locator == PassageLocator(kind: .page, first: page, last: page))
            #expect(chunk.text.split(separator: "\n").allSatisfy { $0.hasPrefix("Page \(page) ") })
        }
    }

    @Test("headings come from the extractor: a line starting with # is text, and a heading's line stays with its text")
    func headingsAreGivenNotParsed() {
        let lines = [
            "Introduction", "# of users grew by a third.", "", "Methods", "We counted them twice.", "",
            "## not a heading either",
        ]
        let document = ExtractedDocument(
            lines: lines,
            headings: [
                ExtractedDocument.Heading(line: 0, path: ["Introduction"]),
                ExtractedDocument.Heading(line: 3, path: ["Introduction", "Methods"]),
            ],
            extractor: "test")
        let chunks = Chunker().chunks(of: document)
        checkInvariants(chunks, of: lines.joined(separator: "\n"), maxTokens: 400)
        #expect(chunks.map(\.headingPath) == [["Introduction"], ["Introduction", "Methods"]])
        #expect(chunks.map(\.text) == [lines[0...1].joined(separator: "\n"), lines[3...6].joined(separator: "\n")])
        #expect(chunks.allSatisfy { $0.locator == nil })
    }

    @Test("a chunk over several locator regions without a boundary between them carries the range")
    func locatorRanges() {
        let lines = ["Slide one text.", "Slide two text.", "Slide three text."]
        let document = ExtractedDocument(
            lines: lines,
            locators: [
                ExtractedDocument.Locator(line: 0, kind: .page, number: 3, approximate: true),
                ExtractedDocument.Locator(line: 2, kind: .page, number: 4, approximate: true),
            ],
            extractor: "test")
        let chunks = Chunker().chunks(of: document)
        #expect(chunks.map(\.locator) == [PassageLocator(kind: .page, first: 3, last: 4, approximate: true)])
        #expect(chunks[0].locator?.label == "≈p.3–4")
        #expect(chunks[0].locator?.fragment == "page=3")
    }

    @Test("labels and fragments of each locator kind")
    func labels() {
        #expect(PassageLocator(kind: .page, first: 4, last: 5).label == "p.4–5")
        #expect(PassageLocator(kind: .page, first: 4, last: 4).label == "p.4")
        #expect(PassageLocator(kind: .slide, first: 3, last: 3).label == "slide 3")
        #expect(PassageLocator(kind: .message, first: 42, last: 42).fragment == "msg=42")
        #expect(PassageLocator(kind: .cell, first: 7, last: 8).label == "cells 7–8")
    }

    @Test("lines before the first locator and an empty document")
    func edges() {
        let document = ExtractedDocument(
            lines: ["Title page", "", "Body"], boundaries: [2],
            locators: [ExtractedDocument.Locator(line: 2, kind: .page, number: 2)], extractor: "test")
        let chunks = Chunker().chunks(of: document)
        #expect(chunks.map(\.locator) == [nil, PassageLocator(kind: .page, first: 2, last: 2)])
        #expect(Chunker().chunks(of: ExtractedDocument(lines: [], extractor: "test")).isEmpty)
        #expect(Chunker().chunks(of: ExtractedDocument(lines: ["", " "], boundaries: [1], extractor: "test")).isEmpty)
    }
}
