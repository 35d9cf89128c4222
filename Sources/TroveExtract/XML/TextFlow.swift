import TroveIngest

/// A word processor's body (DOCX, ODT) written into a `DocumentBuilder`: paragraphs as blocks, heading paragraphs
/// as sections, each table row as one line (`cell | cell`), notes after the paragraph that cites them, and the page
/// breaks the author's last layout left as approximate page boundaries.
struct TextFlow {
    private var builder: DocumentBuilder
    /// Open paragraphs, innermost last (a text box's paragraphs sit inside a paragraph).
    private var paragraphs: [Paragraph] = []
    /// Open tables, innermost last: a nested table's rows become its cell's text.
    private var tables: [Table] = []
    private var headingPath: [(level: Int, text: String)] = []
    /// Notes cited since the last line written, written after the next one.
    private var notes: [String] = []
    /// Page breaks met outside any paragraph, applied before the next line.
    private var pendingBreaks = 0
    private var page = 0

    /// A paragraph being read: its text in pieces cut at page breaks, each with the breaks before it.
    private struct Paragraph {
        var pieces: [(breaks: Int, text: String)] = [(0, "")]
        var level: Int?
    }

    private struct Table {
        var row: [String] = []
        var cell: [String] = []
        var breaks = 0
        var rows = 0
    }

    /// An empty flow: page 1 starts at the first line (and is dropped in `finish` if no page break follows).
    init(extractor: String, limits: ExtractionLimits) throws(ExtractionFailure) {
        builder = DocumentBuilder(extractor: extractor, limits: limits)
        try newPage()
    }

    /// Whether a paragraph is open (text outside one, e.g. between a table's cells, is not part of the flow).
    var inParagraph: Bool { !paragraphs.isEmpty }

    /// Opens a paragraph; `level` makes it a heading (0 a title, 1…9 heading levels).
    mutating func startParagraph(level: Int? = nil) {
        paragraphs.append(Paragraph(level: level))
    }

    /// Marks the open paragraph as a heading of `level` (DOCX names the style after the paragraph opens).
    mutating func setLevel(_ level: Int?) {
        guard !paragraphs.isEmpty else { return }
        paragraphs[paragraphs.count - 1].level = level
    }

    /// Text of the open paragraph; ignored outside one.
    mutating func text(_ text: some StringProtocol) {
        guard !paragraphs.isEmpty else { return }
        paragraphs[paragraphs.count - 1].pieces[paragraphs[paragraphs.count - 1].pieces.count - 1].text += text
    }

    /// A page break from the author's last layout: before the next text, wherever it is.
    mutating func pageBreak() {
        if !tables.isEmpty {
            tables[tables.count - 1].breaks += 1
        } else if let last = paragraphs.indices.last {
            let pieces = paragraphs[last].pieces
            if pieces[pieces.count - 1].text.allSatisfy(\.isWhitespace) {
                paragraphs[last].pieces[pieces.count - 1].breaks += 1
            } else {
                paragraphs[last].pieces.append((1, ""))
            }
        } else {
            pendingBreaks += 1
        }
    }

    /// A note cited in the open paragraph: its marker goes into the text, the note after the paragraph.
    mutating func note(marker: String, text: String) {
        self.text("[\(marker)]")
        let body = Self.squeezed(text)
        if !body.isEmpty { notes.append("[\(marker)] \(body)") }
    }

    /// Closes the open paragraph: into its table cell, or written as a block (a section start for a heading).
    mutating func endParagraph() throws(ExtractionFailure) {
        guard let paragraph = paragraphs.popLast() else { return }
        if !tables.isEmpty {
            let text = Self.squeezed(paragraph.pieces.map(\.text).joined(separator: " "))
            if !text.isEmpty { tables[tables.count - 1].cell.append(text) }
            return
        }
        builder.blankLine()
        for (position, piece) in paragraph.pieces.enumerated() {
            // Each line trimmed and blank ones dropped: a blank line would split the paragraph's block.
            let text = piece.text.split(separator: "\n").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
                .joined(separator: "\n")
            try breaks(piece.breaks + (position == 0 ? pendingBreaks : 0))
            if position == 0 { pendingBreaks = 0 }
            guard !text.isEmpty else { continue }
            if position == 0, let level = paragraph.level {
                let title = Self.squeezed(text)
                headingPath.removeAll { $0.level >= level }
                headingPath.append((level, title))
                builder.heading(headingPath.map(\.text))
            }
            try builder.line(text)
        }
        try writeNotes()
    }

    /// Opens a table.
    mutating func startTable() { tables.append(Table()) }

    /// Closes a cell of the open table's row.
    mutating func endCell() {
        guard !tables.isEmpty else { return }
        let cell = tables[tables.count - 1].cell.joined(separator: " ")
        tables[tables.count - 1].row.append(cell)
        tables[tables.count - 1].cell = []
    }

    /// Closes a row: one line, or the text of the enclosing cell when the table is nested.
    mutating func endRow() throws(ExtractionFailure) {
        guard var table = tables.popLast() else { return }
        let line = table.row.filter { !$0.isEmpty }.joined(separator: " | ")
        table.row = []
        if tables.isEmpty {
            // The rows are consecutive lines of one block.
            if table.rows == 0 { builder.blankLine() }
            try breaks(table.breaks + pendingBreaks)
            pendingBreaks = 0
            table.breaks = 0
            if !line.isEmpty {
                table.rows += 1
                try builder.line(line)
                try writeNotes()
            }
        } else if !line.isEmpty {
            tables[tables.count - 1].cell.append(line)
        }
        tables.append(table)
    }

    /// Closes the open table.
    mutating func endTable() {
        guard tables.popLast() != nil, tables.isEmpty else { return }
        builder.blankLine()
    }

    /// The document written. A file without a single page break from a layout (never laid out, or written by a tool
    /// that keeps none) claims no page at all, rather than "≈ page 1" for every passage.
    func finish() -> ExtractedDocument {
        var document = builder.finish()
        if page == 1 {
            document.locators = []
            document.boundaries.removeAll { $0 == 0 }
        }
        return document
    }

    private mutating func breaks(_ count: Int) throws(ExtractionFailure) {
        for _ in 0..<count { try newPage() }
    }

    private mutating func newPage() throws(ExtractionFailure) {
        page += 1
        try builder.boundary(.page, number: page, approximate: true)
    }

    private mutating func writeNotes() throws(ExtractionFailure) {
        guard !notes.isEmpty, tables.isEmpty else { return }
        for note in notes { try builder.line(note) }
        notes = []
    }

    /// Each line's runs of spaces and tabs as one space, ends trimmed, blank lines dropped: a slide's paragraph
    /// with its line breaks.
    static func squeezedLines(_ text: String) -> String {
        text.split(separator: "\n").map(squeezed).filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// Runs of whitespace (line breaks included) as one space, ends trimmed: for headings, cells and notes.
    static func squeezed(_ text: some StringProtocol) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

extension StringProtocol {
    /// The text without leading and trailing whitespace (line breaks included).
    fileprivate func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
