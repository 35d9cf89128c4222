import TroveIngest

/// Builds an `ExtractedDocument` line by line, as every extractor does: sections, hard boundaries and locators are
/// marked at the next line written, and the output cap is enforced as the text grows.
package struct DocumentBuilder {
    private var document: ExtractedDocument
    private var outputBytes = 0
    private let maxOutputBytes: Int
    private let maxParts: Int
    private var parts = 0
    /// The output cap was reached: the last `line` threw for it.
    package private(set) var isFull = false

    /// An empty document read by `extractor` (stored as how the document was read, e.g. `docx`).
    package init(extractor: String, limits: ExtractionLimits) {
        document = ExtractedDocument(lines: [], extractor: extractor)
        maxOutputBytes = limits.maxOutputBytes
        maxParts = limits.maxParts
    }

    /// The UTF-8 bytes of text that may still be written before the output cap.
    package var remainingBytes: Int { max(0, maxOutputBytes - outputBytes) }

    /// The number of lines written so far: the 0-based index of the next line.
    package var lineCount: Int { document.lines.count }

    /// The source encoding when it was not UTF-8.
    package var encoding: String? {
        get { document.encoding }
        set { document.encoding = newValue }
    }

    /// Starts a section with this heading path at the next line (replacing a start already marked there); `anchor`
    /// is the id a link to the section uses (an HTML heading's).
    package mutating func heading(_ path: [String], anchor: String? = nil) {
        let next = document.lines.count
        if document.headings.last?.line == next { document.headings.removeLast() }
        document.headings.append(ExtractedDocument.Heading(line: next, path: path, anchor: anchor))
    }

    /// Starts a hard boundary at the next line: page (slide, message, cell) `number`, which the chunker never packs
    /// across. Throws `damaged` past `maxParts`.
    package mutating func boundary(_ kind: LocatorKind, number: Int, approximate: Bool = false)
        throws(ExtractionFailure)
    {
        parts += 1
        guard parts <= maxParts else {
            throw ExtractionFailure(.damaged, "more than \(maxParts) \(kind.rawValue)s")
        }
        let next = document.lines.count
        if document.boundaries.last != next { document.boundaries.append(next) }
        if document.locators.last?.line == next { document.locators.removeLast() }
        document.locators.append(
            ExtractedDocument.Locator(line: next, kind: kind, number: number, approximate: approximate))
    }

    /// Starts a hard boundary at the next line without a locator (an EPUB chapter, a notebook's cell in a
    /// document without cell numbers).
    package mutating func boundary() {
        let next = document.lines.count
        if document.boundaries.last != next { document.boundaries.append(next) }
    }

    /// Appends text as one or more lines (split at LF, CRLF and CR). Throws `damaged` when the rendition would
    /// pass `maxOutputBytes`.
    package mutating func line(_ text: some StringProtocol) throws(ExtractionFailure) {
        for piece in Chunker.lines(of: String(text)).map(String.init) + (text.isEmpty ? [""] : []) {
            outputBytes += piece.utf8.count + 1
            guard outputBytes <= maxOutputBytes else {
                isFull = true
                throw ExtractionFailure(.damaged, "more than \(ByteSize.format(Int64(maxOutputBytes))) of text")
            }
            document.lines.append(piece)
        }
    }

    /// Appends a blank line unless the document is empty or already ends in one (blocks are separated by one).
    package mutating func blankLine() {
        guard let last = document.lines.last, !last.isEmpty else { return }
        document.lines.append("")
        outputBytes += 1
    }

    /// Appends another extracted document (an EPUB chapter, a mail's HTML body): its lines, with its sections
    /// nested under `path` and, unless `withParts` is false (a mail's attachment, which lies within its message),
    /// its boundaries and locators shifted to their new lines.
    package mutating func append(_ other: ExtractedDocument, under path: [String] = [], withParts: Bool = true)
        throws(ExtractionFailure)
    {
        let offset = document.lines.count
        if other.headings.first?.line != 0, document.headings.last?.path != path { heading(path) }
        for start in other.headings {
            document.headings.append(
                ExtractedDocument.Heading(line: start.line + offset, path: path + start.path, anchor: start.anchor))
        }
        if withParts {
            for line in other.boundaries { document.boundaries.append(line + offset) }
            for locator in other.locators {
                var moved = locator
                moved.line += offset
                document.locators.append(moved)
            }
        }
        for line in other.lines { try self.line(line) }
    }

    /// How far the document has been written, to go back to with `rollback(to:)`.
    package struct Mark {
        fileprivate let lines, headings, boundaries, locators, outputBytes, parts: Int
        // A heading or locator marked at the next line is replaced, not added, by the next one marked there.
        fileprivate let lastHeading: ExtractedDocument.Heading?
        fileprivate let lastLocator: ExtractedDocument.Locator?
    }

    /// The document as written so far.
    package var mark: Mark {
        Mark(
            lines: document.lines.count, headings: document.headings.count, boundaries: document.boundaries.count,
            locators: document.locators.count, outputBytes: outputBytes, parts: parts,
            lastHeading: document.headings.last, lastLocator: document.locators.last)
    }

    /// Drops everything written after `mark` (a mailbox's message that did not fit), so that the document ends with
    /// the last whole part.
    package mutating func rollback(to mark: Mark) {
        document.lines.removeLast(document.lines.count - mark.lines)
        document.headings.removeLast(document.headings.count - mark.headings)
        document.boundaries.removeLast(document.boundaries.count - mark.boundaries)
        document.locators.removeLast(document.locators.count - mark.locators)
        if let heading = mark.lastHeading { document.headings[document.headings.count - 1] = heading }
        if let locator = mark.lastLocator { document.locators[document.locators.count - 1] = locator }
        outputBytes = mark.outputBytes
        parts = mark.parts
        isFull = false
    }

    /// Adds locators that are not hard boundaries (an EPUB's print pages, found after its chapters were written),
    /// kept in line order; of two at one line the later added wins.
    package mutating func locate(_ added: [ExtractedDocument.Locator]) {
        var byLine: [Int: ExtractedDocument.Locator] = [:]
        for locator in document.locators + added { byLine[locator.line] = locator }
        document.locators = byLine.values.sorted { $0.line < $1.line }
    }

    /// Records that a cap left parts of the file out (`ExtractedDocument.truncation`).
    package mutating func truncated(_ truncation: ExtractedDocument.Truncation) {
        document.truncation = truncation
    }

    /// The document, with trailing blank lines removed and marks past the last line dropped.
    package func finish() -> ExtractedDocument {
        var result = document
        while result.lines.last?.isEmpty == true { result.lines.removeLast() }
        let count = result.lines.count
        result.headings.removeAll { $0.line >= count && $0.line > 0 }
        result.boundaries.removeAll { $0 >= count }
        result.locators.removeAll { $0.line >= count && $0.line > 0 }
        return result
    }
}
