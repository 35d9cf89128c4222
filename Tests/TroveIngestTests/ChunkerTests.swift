import Testing
import TroveTestSupport

@testable import TroveIngest

/// Checks every invariant a chunking must keep; returns the document's lines for further checks.
@discardableResult
func checkInvariants(
    _ chunks: [Chunk], of text: String, maxTokens: Int, sourceLocation: SourceLocation = #_sourceLocation
) -> [Substring] {
    let lines = Chunker.lines(of: text)
    var covered = Set<Int>()
    for (index, chunk) in chunks.enumerated() {
        #expect(chunk.ordinal == index, sourceLocation: sourceLocation)
        #expect(
            chunk.startLine >= 1 && chunk.startLine <= chunk.endLine && chunk.endLine <= lines.count,
            "chunk \(index) lines \(chunk.startLine)...\(chunk.endLine)", sourceLocation: sourceLocation)
        guard chunk.startLine >= 1, chunk.startLine <= chunk.endLine, chunk.endLine <= lines.count else { continue }
        let span = lines[(chunk.startLine - 1)...(chunk.endLine - 1)]
        // Pieces of one line (a line over the limit) are consecutive single-line chunks that join into it.
        let isPiece = { (other: Chunk) in other.startLine == chunk.startLine && other.endLine == chunk.startLine }
        if chunk.startLine == chunk.endLine, index > 0 && isPiece(chunks[index - 1]) {
            continue
        } else if chunk.startLine == chunk.endLine, index + 1 < chunks.count, isPiece(chunks[index + 1]) {
            let pieces = chunks[index...].prefix(while: isPiece)
            #expect(
                pieces.map(\.text).joined() == span.first!, "the pieces from chunk \(index) join into their line",
                sourceLocation: sourceLocation)
            #expect(
                !pieces.contains { $0.text.allSatisfy(\.isWhitespace) }, "no piece from chunk \(index) is blank",
                sourceLocation: sourceLocation)
            covered.insert(chunk.startLine - 1)
            continue
        }
        #expect(
            chunk.text == span.joined(separator: "\n"), "chunk \(index) text is its lines",
            sourceLocation: sourceLocation)
        let isBlank = chunk.text.allSatisfy { $0.isWhitespace }
        #expect(!isBlank, "chunk \(index) is not blank", sourceLocation: sourceLocation)
        let trimmed = !span.first!.allSatisfy { $0.isWhitespace } && !span.last!.allSatisfy { $0.isWhitespace }
        #expect(
            trimmed,
            "chunk \(index) is trimmed of blank lines", sourceLocation: sourceLocation)
        #expect(
            TokenEstimate.count(chunk.text) <= maxTokens || chunk.startLine == chunk.endLine,
            "chunk \(index) within budget: \(TokenEstimate.count(chunk.text)) tokens", sourceLocation: sourceLocation)
        covered.formUnion((chunk.startLine - 1)...(chunk.endLine - 1))
    }
    for (number, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
        #expect(covered.contains(number), "line \(number + 1) is covered: \(line)", sourceLocation: sourceLocation)
    }
    return lines
}

struct ChunkerTests {
    @Test("Markdown chunks follow headings and carry their heading path")
    func headingPaths() {
        let text = """
            Intro line.

            # Deploy
            How we deploy.
            ## Keys
            Rotate them.
            ### Rotation ###
            Monthly.
            ## Hosts
            web1, web2
            # Other
            Done.
            """
        let chunks = Chunker().chunks(of: text, kind: .markdown)
        checkInvariants(chunks, of: text, maxTokens: 400)
        #expect(
            chunks.map(\.headingPath) == [
                [], ["Deploy"], ["Deploy", "Keys"], ["Deploy", "Keys", "Rotation"], ["Deploy", "Hosts"], ["Other"],
            ])
        #expect(chunks.map(\.startLine) == [1, 3, 5, 7, 9, 11])
        #expect(chunks[3].text == "### Rotation ###\nMonthly.")
    }

    @Test("a heading inside a code fence is not a heading, and the fence is not split")
    func fencesStayWhole() {
        var text = "# Setup\n\n"
        for i in 0..<12 { text += "Paragraph \(i) has a few words in it to fill the budget.\n\n" }
        text += "```sh\n# not a heading\n\nmake install\n\n~~~\nstill code\n```\n\nAfter the fence.\n"
        for i in 0..<12 { text += "Tail \(i) has a few words in it to fill the budget.\n\n" }
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 80, overlap: 0.15)).chunks(
            of: text, kind: .markdown)
        let lines = checkInvariants(chunks, of: text, maxTokens: 80)
        #expect(chunks.count > 3)
        #expect(chunks.allSatisfy { $0.headingPath == ["Setup"] })
        let open = lines.firstIndex(of: "```sh")! + 1
        let close = lines.lastIndex(of: "```")! + 1
        let touching = chunks.filter { $0.startLine <= close && $0.endLine >= open }
        #expect(touching.count == 1)
        #expect(touching.allSatisfy { $0.startLine <= open && $0.endLine >= close })
    }

    @Test("a fence longer than the budget is split at lines as a last resort")
    func hugeFence() {
        var text = "# Code\n```swift\n"
        for i in 0..<60 { text += "let value\(i) = compute(\(i))\n" }
        text += "```\n"
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 60, overlap: 0.1)).chunks(
            of: text, kind: .markdown)
        checkInvariants(chunks, of: text, maxTokens: 60)
        #expect(chunks.count > 3)
    }

    @Test("a long section is split at paragraphs with overlap from the previous piece")
    func overlapWhenSplitting() {
        var text = "# Long\n"
        for i in 0..<30 { text += "Sentence number \(i) is here.\nAnd its second line \(i).\n\n" }
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 60, overlap: 0.2)).chunks(
            of: text, kind: .markdown)
        checkInvariants(chunks, of: text, maxTokens: 60)
        #expect(chunks.count > 3)
        for (previous, next) in zip(chunks, chunks.dropFirst()) {
            #expect(next.startLine <= previous.endLine, "chunk \(next.ordinal) repeats the end of \(previous.ordinal)")
            #expect(next.startLine > previous.startLine)
        }
        // Paragraph boundaries: the first chunk ends at the end of a paragraph.
        #expect(chunks[0].text.hasSuffix(".") && chunks[0].text.split(separator: "\n").last!.hasPrefix("And its"))
    }

    @Test("without overlap, split pieces do not repeat lines")
    func noOverlap() {
        var text = ""
        for i in 0..<40 { text += "line \(i) of plain text\n" }
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 50, overlap: 0)).chunks(
            of: text, kind: .plainText)
        checkInvariants(chunks, of: text, maxTokens: 50)
        for (previous, next) in zip(chunks, chunks.dropFirst()) { #expect(next.startLine == previous.endLine + 1) }
    }

    @Test("a single line over the budget is cut at word boundaries into pieces of that line")
    func longLine() {
        let long = Array(repeating: "word", count: 300).joined(separator: " ")
        let text = "# H\nshort\n\n\(long)\n\nafter"
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 50)).chunks(of: text, kind: .markdown)
        checkInvariants(chunks, of: text, maxTokens: 50)
        let pieces = chunks.filter { $0.startLine == 4 }
        #expect(pieces.count == 12)
        #expect(pieces.allSatisfy { $0.endLine == 4 && TokenEstimate.count($0.text) <= 50 })
        #expect(pieces.allSatisfy { $0.text.hasPrefix("word") })
    }

    @Test("a heading stays with the start of its text when the first paragraph is too long")
    func headingNotAlone() {
        var text = "# Title\n"
        for i in 0..<40 { text += "line \(i) of one long paragraph\n" }
        let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 60)).chunks(of: text, kind: .markdown)
        checkInvariants(chunks, of: text, maxTokens: 60)
        #expect(chunks[0].text.hasPrefix("# Title\nline 0"))
    }

    @Test("front matter belongs to the first chunk and is not mistaken for headings")
    func frontMatter() {
        let text = "---\ntitle: Notes\ntags: [a]\n---\n\nHello.\n\n# First\nBody\n"
        let chunks = Chunker().chunks(of: text, kind: .markdown)
        checkInvariants(chunks, of: text, maxTokens: 400)
        #expect(chunks.map(\.headingPath) == [[], ["First"]])
        #expect(chunks[0].startLine == 1 && chunks[0].endLine == 6)
    }

    @Test("CR, CRLF and LF line breaks all count as one line each")
    func lineBreaks() {
        let text = "a\r\nb\rc\n\r\nd"
        #expect(Chunker.lines(of: text) == ["a", "b", "c", "", "d"])
        let chunks = Chunker().chunks(of: text, kind: .plainText)
        #expect(chunks.map(\.text) == ["a\nb\nc\n\nd"])
        #expect(chunks.map(\.endLine) == [5])
    }

    @Test("plain text and code are packed by blank-line blocks")
    func plainPacking() {
        let text = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n"
        let chunks = Chunker().chunks(of: text, kind: .code(language: "python"))
        #expect(
            chunks == [
                Chunk(
                    ordinal: 0, startLine: 1, endLine: 6, headingPath: [],
                    text: "def a():\n    return 1\n\n\ndef b():\n    return 2")
            ])
        let small = Chunker(configuration: ChunkerConfiguration(maxTokens: 12, overlap: 0)).chunks(
            of: text, kind: .code(language: "python"))
        #expect(small.map { [$0.startLine, $0.endLine] } == [[1, 2], [5, 6]])
    }

    @Test("Org and reStructuredText headings give heading paths")
    func orgAndRst() {
        let org = "#+title: x\n* Projects\nsome\n** Trove\nmore\n#+begin_src\n* not\n#+end_src\n* Home\nend"
        let orgChunks = Chunker().chunks(of: org, kind: .org)
        checkInvariants(orgChunks, of: org, maxTokens: 400)
        #expect(orgChunks.map(\.headingPath) == [[], ["Projects"], ["Projects", "Trove"], ["Home"]])
        let rst = "Title\n=====\n\nintro\n\nSection\n-------\nbody\n\nOther\n=====\nend\n"
        let rstChunks = Chunker().chunks(of: rst, kind: .restructuredText)
        checkInvariants(rstChunks, of: rst, maxTokens: 400)
        #expect(rstChunks.map(\.headingPath) == [["Title"], ["Title", "Section"], ["Other"]])
    }

    @Test("an overlined reStructuredText title is one heading, not a chunk of its own")
    func rstOverline() {
        let rst = "=======\n Guide\n=======\n\nintro words\n\nPart\n====\nbody\n"
        let chunks = Chunker().chunks(of: rst, kind: .restructuredText)
        checkInvariants(chunks, of: rst, maxTokens: 400)
        #expect(chunks.map(\.headingPath) == [["Guide"], ["Guide", "Part"]])
        #expect(chunks.first?.startLine == 1)
        #expect(chunks.first?.text.contains("intro words") == true)
    }

    @Test("empty and blank documents give no chunks")
    func emptyDocuments() {
        #expect(Chunker().chunks(of: "", kind: .markdown) == [])
        #expect(Chunker().chunks(of: "\n  \n\t\r\n", kind: .plainText) == [])
    }

    @Test("a page break (form feed) or a no-break space alone on a line is blank, never a chunk of its own")
    func formFeedLines() {
        // Found by the chunker fuzz target: a line holding only U+000C became a chunk with nothing to embed.
        let text = "alpha one two\n\u{0C}\nbeta three four\n\u{00A0}\u{0C}\ngamma five six"
        for kind in [DocumentKind.plainText, .markdown, .code(language: "c")] {
            let chunks = Chunker(configuration: ChunkerConfiguration(maxTokens: 8, overlap: 0)).chunks(of: text, kind: kind)
            #expect(chunks.map(\.text) == ["alpha one two", "beta three four", "gamma five six"], "\(kind)")
        }
        #expect(Chunker().chunks(of: "\u{0C}\n\u{0B}\n", kind: .plainText) == [])
    }

    @Test("the configuration fingerprint is stable")
    func fingerprint() {
        #expect(ChunkerConfiguration().fingerprint == "maxTokens=400,overlap=0.12")
        #expect(ChunkerConfiguration(maxTokens: 900, overlap: 0.15).fingerprint == "maxTokens=900,overlap=0.15")
    }

    @Test(
        "token estimates over-count words and count punctuation and non-ASCII",
        arguments: [
            ("", 0), ("   \n\t", 0), ("a", 2), ("hello", 3), ("tokenization", 4), ("a, b", 5), ("日本語", 3),
            ("café", 3), ("x=1;", 6),
        ])
    func tokenEstimates(text: String, expected: Int) {
        #expect(TokenEstimate.count(text) == expected)
    }

    @Test(
        "generated documents: every non-blank line covered, fences whole, budgets kept, output deterministic",
        arguments: 0..<60)
    func property(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        let words = ["alpha", "beta", "gamma", "δέλτα", "日本", "x", "longerwordhere", "—", "(paren)", "a,b", "#tag"]
        var lines: [String] = []
        var fences: [ClosedRange<Int>] = []
        var unclosed: Int?  // an unclosed fence runs to the end: fences after it are its text
        let kinds: [DocumentKind] = [.markdown, .markdown, .plainText, .org, .restructuredText, .code(language: "c")]
        let kind = kinds[seed % kinds.count]
        for _ in 0..<Int.random(in: 5...40, using: &random) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                lines.append(String(repeating: "#", count: Int.random(in: 1...7, using: &random)) + " Heading")
            case 1:
                let mark = Bool.random(using: &random) ? "```" : "~~~~"
                let start = lines.count
                lines.append(mark + "lang")
                for _ in 0..<Int.random(in: 0...12, using: &random) {
                    lines.append(Bool.random(using: &random) ? "" : "code # line \(lines.count)")
                }
                if Int.random(in: 0..<8, using: &random) != 0 {
                    lines.append(mark)
                    if unclosed == nil { fences.append(start...(lines.count - 1)) }
                } else if unclosed == nil {
                    unclosed = start
                }
            case 2:
                lines.append("")
                lines.append("   ")
            case 3:
                lines.append(
                    (0..<Int.random(in: 50...120, using: &random)).map { _ in words.randomElement(using: &random)! }
                        .joined(separator: " "))
            default:
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    lines.append(
                        (0..<Int.random(in: 1...12, using: &random)).map { _ in words.randomElement(using: &random)! }
                            .joined(separator: " "))
                }
                lines.append("")
            }
        }
        if let unclosed { fences.append(unclosed...(lines.count - 1)) }
        let breaks = ["\n", "\r\n", "\r"]
        let newline = breaks[Int.random(in: 0..<3, using: &random)]
        let text = lines.joined(separator: newline) + (Bool.random(using: &random) ? newline : "")
        let maxTokens = [20, 60, 150, 400][Int.random(in: 0..<4, using: &random)]
        let configuration = ChunkerConfiguration(maxTokens: maxTokens, overlap: [0, 0.12, 0.3][seed % 3])
        let chunker = Chunker(configuration: configuration)
        let chunks = chunker.chunks(of: text, kind: kind)
        checkInvariants(chunks, of: text, maxTokens: maxTokens)
        #expect(chunker.chunks(of: text, kind: kind) == chunks)
        guard kind == .markdown else { return }
        for fence in fences {
            let fenceText = lines[fence].joined(separator: "\n")
            guard TokenEstimate.count(fenceText) <= maxTokens else { continue }
            let touching = chunks.filter { $0.startLine - 1 <= fence.upperBound && $0.endLine - 1 >= fence.lowerBound }
            let whole = touching.allSatisfy {
                $0.startLine - 1 <= fence.lowerBound && $0.endLine - 1 >= fence.upperBound
            }
            #expect(whole, "fence \(fence) split: \(touching.map { ($0.startLine, $0.endLine) })")
        }
    }
}
