import Testing
import TroveTestSupport

@testable import TroveIngest

/// A limit that counts whitespace-separated words, so the expected cuts are easy to state.
private func words(context: Int, markers: Int = 0, prefix: String = "") -> TokenLimit {
    TokenLimit(context: context, markers: markers, prefix: prefix, counting: .tokenizer) { text in
        text.split(whereSeparator: \.isWhitespace).count
    }
}

/// The pieces `chunks` cut line `line` (1-based) into.
private func pieces(_ chunks: [Chunk], line: Int) -> [Chunk] {
    chunks.filter { $0.startLine == line && $0.endLine == line }
}

struct TokenLimitTests {
    /// Ten sentences of twelve words each, on one line.
    let paragraph = (1...10).map { "Sentence \($0) has exactly twelve words in it, counted one by one." }
        .joined(separator: " ")

    @Test("a line over the model's context is cut at sentence ends into pieces that join into the line")
    func sentences() {
        let text = "Intro.\n\n" + paragraph + "\n\nAfter."
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 1000), limit: words(context: 50))
            .chunks(of: text, kind: .plainText)
        checkInvariants(chunks, of: text, maxTokens: 1000)
        let cut = pieces(chunks, line: 3)
        // 120 words under 50: pieces of whole sentences, each as long as fits.
        #expect(cut.map { $0.text.split(separator: " ").count } == [48, 48, 24])
        #expect(cut.dropLast().allSatisfy { $0.text.hasSuffix("one. ") })
        #expect(cut.map(\.text).joined() == paragraph)
    }

    @Test("a sentence over the context is cut at words, a word over it between characters")
    func wordsAndCharacters() {
        let sentence = (1...30).map { "w\($0)" }.joined(separator: " ")
        let chunks = Chunker(limit: words(context: 8)).chunks(of: sentence, kind: .plainText)
        checkInvariants(chunks, of: sentence, maxTokens: 400)
        #expect(chunks.count == 4)
        #expect(chunks.allSatisfy { $0.text.split(separator: " ").count <= 8 })

        // Estimated tokens: a 3,000-letter run counts 751, so it is cut between characters.
        let blob = String(repeating: "QUJD", count: 750)
        let cut = Chunker(configuration: ChunkerConfiguration(maxTokens: 100)).chunks(of: blob, kind: .plainText)
        checkInvariants(cut, of: blob, maxTokens: 100)
        #expect(cut.count > 1 && cut.allSatisfy { TokenEstimate.count($0.text) <= 100 })
    }

    @Test("leading whitespace stays with the first word, so no piece is blank (a fuzz finding)")
    func leadingWhitespace() {
        let text = "\u{0B}Para" + String(repeating: "\u{FFFD}", count: 43) + " one."
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 8, overlap: 0)).chunks(
            of: text, kind: .restructuredText)
        checkInvariants(chunks, of: text, maxTokens: 8)
        #expect(chunks.count > 1 && chunks.first?.text.hasPrefix("\u{0B}Para") == true)
    }

    @Test("the heading line and the model's prefix are counted against the context")
    func headingAndPrefix() {
        let limit = words(context: 20, markers: 2, prefix: "search document: ")
        #expect(limit.available(headingPath: []) == 16)
        #expect(limit.available(headingPath: ["Deploy", "Keys and hosts"]) == 11)
        let text = "# Deploy\n\n" + (1...40).map { "k\($0)" }.joined(separator: " ")
        let chunks = Chunker(limit: limit).chunks(of: text, kind: .markdown)
        checkInvariants(chunks, of: text, maxTokens: 400)
        // The heading "Deploy" takes one word of the 16 left after the markers and the prefix.
        #expect(chunks.allSatisfy { $0.text.split(whereSeparator: \.isWhitespace).count <= 15 })
    }

    @Test("lines packed within the budget but over the model's context are cut at lines")
    func linesOverContext() {
        let lines = (1...6).map { "line \($0) of the note" }
        let text = lines.joined(separator: "\n")
        // Within 400 estimated tokens, but 30 words against a context of 12.
        let chunks = Chunker(limit: words(context: 12)).chunks(of: text, kind: .plainText)
        checkInvariants(chunks, of: text, maxTokens: 400)
        #expect(chunks.map(\.text) == [lines[0...1], lines[2...3], lines[4...5]].map { $0.joined(separator: "\n") })
    }

    @Test("pieces of an extracted paragraph keep its page and line")
    func extracted() {
        let document = ExtractedDocument(
            lines: ["Page two.", paragraph, "Short."], boundaries: [1, 2],
            locators: [
                ExtractedDocument.Locator(line: 0, kind: .page, number: 2),
                ExtractedDocument.Locator(line: 1, kind: .page, number: 3),
                ExtractedDocument.Locator(line: 2, kind: .page, number: 4),
            ], extractor: "test")
        let chunks = Chunker(limit: words(context: 50)).chunks(of: document)
        let cut = pieces(chunks, line: 2)
        #expect(cut.count == 3)
        #expect(cut.allSatisfy { $0.locator == PassageLocator(kind: .page, first: 3, last: 3) })
        #expect(chunks.last?.locator == PassageLocator(kind: .page, first: 4, last: 4))
    }

    @Test("a document's lines are rebuilt from its chunks, pieces of a cut line joined back", arguments: [0, 1, 2, 3])
    func rendition(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var lines: [String] = []
        for _ in 0..<(20 + Int(random.next() % 40)) {
            switch random.next() % 5 {
            case 0: lines.append("")
            case 1: lines.append(paragraph)
            case 2: lines.append("## Heading \(random.next() % 100)")
            default: lines.append((0..<(random.next() % 12 + 1)).map { _ in "w\(random.next() % 1000)" }.joined(separator: " "))
            }
        }
        while lines.last == "" { lines.removeLast() }
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 60), limit: words(context: 40))
            .chunks(of: lines.joined(separator: "\n"), kind: .markdown)
        // As the stores return them: by first line, then in chunk order.
        let stored = chunks.sorted { ($0.startLine, $0.ordinal) < ($1.startLine, $1.ordinal) }
        let rebuilt = Chunker.rendition(of: stored.map { ($0.startLine, $0.endLine, $0.text) })
        #expect(rebuilt == lines)
    }
}
