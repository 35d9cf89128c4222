// Fuzz target: the chunker. The first byte picks the kind, budget and overlap; the rest is the document.
// Oracle: the coverage invariant of ChunkerTests — ordinals from 0, every chunk's text is exactly its lines or a
// piece of one line (the pieces of a line, in order, join into it), no chunk is blank or starts or ends with a blank
// line, every chunk fits the budget (which is the limit without a model's context) unless it is one character, every
// non-blank line is in some chunk, the lines rebuilt from the chunks (`Chunker.rendition`) are the document's —
// and chunking is deterministic. The sixth kind is an extracted document (lines
// starting with `=` are page boundaries with a locator each, lines starting with `#` start sections): no chunk may
// span a boundary, and each chunk's locator is the page it lies on.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let control = data[0]
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let kinds: [DocumentKind] = [
        .markdown, .plainText, .restructuredText, .org, .code(language: "swift"), .extracted(.pdf),
    ]
    let kind = kinds[Int(control % 6)]
    let maxTokens = [8, 20, 60, 150, 400][Int(control / 6 % 5)]
    let overlap = [0, 0.12, 0.3][Int(control / 30 % 3)]
    let chunker = Chunker(configuration: ChunkerConfiguration(maxTokens: maxTokens, overlap: overlap))
    let lines = Chunker.lines(of: text)
    let extracted = extractedDocument(lines)
    let chunks = kind == .extracted(.pdf) ? chunker.chunks(of: extracted) : chunker.chunks(of: text, kind: kind)
    if kind == .extracted(.pdf) {
        for chunk in chunks {
            let inside = extracted.boundaries.filter { $0 > chunk.startLine - 1 && $0 <= chunk.endLine - 1 }
            precondition(inside.isEmpty, "chunk \(chunk.ordinal) spans the boundary at line \(inside[0] + 1)")
            let page = extracted.locators.last { $0.line <= chunk.startLine - 1 }?.number
            precondition(chunk.locator?.first == page && chunk.locator?.last == page, "chunk \(chunk.ordinal) page")
        }
    }
    var covered = Set<Int>()
    for (index, chunk) in chunks.enumerated() {
        precondition(chunk.ordinal == index, "ordinal \(chunk.ordinal) at \(index)")
        precondition(
            chunk.startLine >= 1 && chunk.startLine <= chunk.endLine && chunk.endLine <= lines.count,
            "chunk \(index) lines \(chunk.startLine)...\(chunk.endLine) of \(lines.count)")
        let span = lines[(chunk.startLine - 1)...(chunk.endLine - 1)]
        let isPiece = { (other: Chunk) in other.startLine == chunk.startLine && other.endLine == chunk.startLine }
        if chunk.startLine == chunk.endLine && (index > 0 && isPiece(chunks[index - 1])
            || index + 1 < chunks.count && isPiece(chunks[index + 1]))
        {
            if index == 0 || !isPiece(chunks[index - 1]) {
                let pieces = chunks[index...].prefix(while: isPiece).map(\.text)
                precondition(pieces.joined() == span.first!, "the pieces from chunk \(index) do not join into their line")
            }
        } else {
            precondition(chunk.text == span.joined(separator: "\n"), "chunk \(index) text is not its lines")
            precondition(
                !span.first!.allSatisfy(\.isWhitespace) && !span.last!.allSatisfy(\.isWhitespace),
                "chunk \(index) starts or ends with a blank line")
        }
        precondition(!chunk.text.allSatisfy(\.isWhitespace), "chunk \(index) is blank")
        precondition(
            TokenEstimate.count(chunk.text) <= maxTokens || chunk.text.count == 1,
            "chunk \(index) over budget: \(TokenEstimate.count(chunk.text)) > \(maxTokens)")
        covered.formUnion((chunk.startLine - 1)...(chunk.endLine - 1))
    }
    for (number, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
        precondition(covered.contains(number), "line \(number + 1) is not covered")
    }
    // As the stores return them: by first line, then in chunk order.
    let stored = chunks.sorted { ($0.startLine, $0.ordinal) < ($1.startLine, $1.ordinal) }
    let rebuilt = Chunker.rendition(of: stored.map { ($0.startLine, $0.endLine, $0.text) })
    precondition(rebuilt.count <= lines.count, "rebuilt \(rebuilt.count) lines of \(lines.count)")
    for (number, line) in rebuilt.enumerated() {
        precondition(
            line == lines[number] || line.isEmpty && covered.contains(number) == false,
            "line \(number + 1) is rebuilt otherwise")
    }
    if kind != .extracted(.pdf) {
        precondition(chunker.chunks(of: text, kind: kind) == chunks, "chunking is not deterministic")
    }
    return 0
}

/// The lines as an extracted document: `=` lines start pages (with their locators), `#` lines start sections.
func extractedDocument(_ lines: [Substring]) -> ExtractedDocument {
    var document = ExtractedDocument(lines: lines.map(String.init), extractor: "fuzz")
    for (number, line) in lines.enumerated() {
        if line.hasPrefix("=") {
            document.boundaries.append(number)
            document.locators.append(
                ExtractedDocument.Locator(line: number, kind: .page, number: document.locators.count + 1))
        }
        if line.hasPrefix("#") { document.headings.append(ExtractedDocument.Heading(line: number, path: [String(line)])) }
    }
    return document
}
