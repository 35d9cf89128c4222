/// Splits documents into chunks: Markdown by headings, never inside code fences; text and code by blank-line blocks.
///
/// The rules, in order:
/// 1. The document is cut into sections at headings: Markdown ATX headings (`#`..`######`, not setext), Org `*`
///    headings, reStructuredText titles underlined with a repeated punctuation character. Plain text and code are
///    one section. Each section runs from its heading to the next heading of any level and carries its heading
///    path, outermost first.
/// 2. A section is made of blocks: runs of non-blank lines, a heading line, a fenced code block (``` or ~~~, closed
///    by a fence of the same character at least as long; Org `#+begin_…`/`#+end_…`), Markdown front matter
///    (`---` … `---` on the first line, kept with the first chunk).
/// 3. Blocks are packed in order into chunks of at most `maxTokens` estimated tokens. A block over the budget is
///    split at its lines (for a fence only then: the last resort); a single line over the budget is a chunk alone.
///    When a section needs more than one chunk, each chunk after the first starts with the last lines of the
///    previous one, up to `overlap × maxTokens` tokens (never lines of a code fence).
/// 4. No chunk exceeds the embedding model's context (`limit`, with the heading line and the model's prefix): a
///    chunk over it is cut at its lines, and a line over it into pieces at sentence ends, then word boundaries,
///    then characters (`Chunker+Fitting.swift`). Without a known context the budget is the limit.
/// 5. A chunk spans whole lines: its text is lines `startLine...endLine` joined by `\n`, without leading or
///    trailing blank lines; or it is a piece of one line, and the pieces of a line, in order, are exactly that
///    line. Line breaks are LF, CRLF or CR, counted as an editor does. Every non-blank line is in some chunk.
package struct Chunker: Sendable {
    package var configuration: ChunkerConfiguration
    /// The embedding model's context; nil: `maxTokens` estimated tokens.
    package var limit: TokenLimit?

    package init(configuration: ChunkerConfiguration = ChunkerConfiguration(), limit: TokenLimit? = nil) {
        self.configuration = configuration
        self.limit = limit
    }

    /// The chunks of `text`, ordinals from 0, in document order.
    package func chunks(of text: String, kind: DocumentKind) -> [Chunk] {
        let lines = Self.lines(of: text)
        let document = Document(lines: lines)
        let sections: [Document.Section]
        switch kind {
        case .markdown: sections = document.sections(syntax: .markdown)
        case .org: sections = document.sections(syntax: .org)
        case .restructuredText: sections = document.sections(syntax: .restructuredText)
        // An extracted format's text arrives as an `ExtractedDocument` (`chunks(of:)`); as text it is plain.
        case .plainText, .code, .extracted: sections = document.sections(syntax: .plain)
        }
        return pack(document, sections)
    }

    /// The chunks of `sections` of `document`, each section packed on its own (no chunk spans two).
    func pack(_ document: Document, _ sections: [Document.Section], locators: [ExtractedDocument.Locator] = [])
        -> [Chunk]
    {
        let budget = max(1, configuration.maxTokens)
        let overlapBudget = Int((Double(budget) * min(max(configuration.overlap, 0), 0.5)).rounded(.down))
        var chunks: [Chunk] = []
        for section in sections {
            // Without a model's context, the budget (which leaves room for the heading line) is the limit.
            let fit =
                limit.map { Document.Fit(limit: $0.available(headingPath: section.path), count: $0.count) }
                ?? Document.Fit(limit: budget, count: { TokenEstimate.count($0) })
            for piece in document.pack(section, budget: budget, overlapBudget: overlapBudget) {
                guard let trimmed = document.trimmed(piece) else { continue }
                for part in document.fitted(trimmed, fit) {
                    chunks.append(
                        Chunk(
                            ordinal: chunks.count, startLine: part.lines.lowerBound + 1,
                            endLine: part.lines.upperBound + 1, headingPath: section.path, text: String(part.text),
                            locator: PassageLocator.covering(part.lines, in: locators)))
                }
            }
        }
        return chunks
    }

    /// Lines split at LF, CRLF and CR (an editor's line numbers). A final line break does not add a line.
    package static func lines(of text: String) -> [Substring] {
        var lines: [Substring] = []
        let utf8 = text.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                lines.append(Substring(utf8[start..<index]))
                index = utf8.index(after: index)
                if byte == UInt8(ascii: "\r"), index != utf8.endIndex, utf8[index] == UInt8(ascii: "\n") {
                    index = utf8.index(after: index)
                }
                start = index
            } else {
                index = utf8.index(after: index)
            }
        }
        if start != utf8.endIndex { lines.append(Substring(utf8[start..<utf8.endIndex])) }
        return lines
    }
}
