import TroveIngest

/// Builds an `ExtractedDocument` line by line, as every extractor does: sections, hard boundaries and locators are
/// marked at the next line written, and the output cap is enforced as the text grows.
package struct DocumentBuilder {
    private var document: ExtractedDocument
    private var outputBytes = 0
    private let maxOutputBytes: Int
    private let maxParts: Int
    private var parts = 0

    /// An empty document read by `extractor` (stored as how the document was read, e.g. `docx`).
    package init(extractor: String, limits: ExtractionLimits) {
        document = ExtractedDocument(lines: [], extractor: extractor)
        maxOutputBytes = limits.maxOutputBytes
        maxParts = limits.maxParts
    }

    /// The number of lines written so far: the 0-based index of the next line.
    package var lineCount: Int { document.lines.count }

    /// The source encoding when it was not UTF-8.
    package var encoding: String? {
        get { document.encoding }
        set { document.encoding = newValue }
    }

    /// Starts a section with this heading path at the next line (replacing a start already marked there).
    package mutating func heading(_ path: [String]) {
        let next = document.lines.count
        if document.headings.last?.line == next { document.headings.removeLast() }
        document.headings.append(ExtractedDocument.Heading(line: next, path: path))
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
    /// nested under `path` and its boundaries and locators shifted to their new lines.
    package mutating func append(_ other: ExtractedDocument, under path: [String] = []) throws(ExtractionFailure) {
        let offset = document.lines.count
        if other.headings.first?.line != 0 { heading(path) }
        for start in other.headings {
            document.headings.append(ExtractedDocument.Heading(line: start.line + offset, path: path + start.path))
        }
        for line in other.boundaries { document.boundaries.append(line + offset) }
        for locator in other.locators {
            var moved = locator
            moved.line += offset
            document.locators.append(moved)
        }
        for line in other.lines { try self.line(line) }
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
