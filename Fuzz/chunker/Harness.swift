// Fuzz target: the chunker. The first byte picks the kind, budget and overlap; the rest is the document.
// Oracle: the coverage invariant of ChunkerTests — ordinals from 0, every chunk's text is exactly its lines, no
// chunk is blank or starts or ends with a blank line, every chunk fits the budget unless it is one line, every
// non-blank line is in some chunk — and chunking is deterministic.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let control = data[0]
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let kinds: [DocumentKind] = [.markdown, .plainText, .restructuredText, .org, .code(language: "swift")]
    let kind = kinds[Int(control % 5)]
    let maxTokens = [8, 20, 60, 150, 400][Int(control / 5 % 5)]
    let overlap = [0, 0.12, 0.3][Int(control / 25 % 3)]
    let chunker = Chunker(configuration: ChunkerConfiguration(maxTokens: maxTokens, overlap: overlap))
    let chunks = chunker.chunks(of: text, kind: kind)
    let lines = Chunker.lines(of: text)
    var covered = Set<Int>()
    for (index, chunk) in chunks.enumerated() {
        precondition(chunk.ordinal == index, "ordinal \(chunk.ordinal) at \(index)")
        precondition(
            chunk.startLine >= 1 && chunk.startLine <= chunk.endLine && chunk.endLine <= lines.count,
            "chunk \(index) lines \(chunk.startLine)...\(chunk.endLine) of \(lines.count)")
        let span = lines[(chunk.startLine - 1)...(chunk.endLine - 1)]
        precondition(chunk.text == span.joined(separator: "\n"), "chunk \(index) text is not its lines")
        precondition(!chunk.text.allSatisfy(\.isWhitespace), "chunk \(index) is blank")
        precondition(
            !span.first!.allSatisfy(\.isWhitespace) && !span.last!.allSatisfy(\.isWhitespace),
            "chunk \(index) starts or ends with a blank line")
        precondition(
            TokenEstimate.count(chunk.text) <= maxTokens || chunk.startLine == chunk.endLine,
            "chunk \(index) over budget: \(TokenEstimate.count(chunk.text)) > \(maxTokens)")
        covered.formUnion((chunk.startLine - 1)...(chunk.endLine - 1))
    }
    for (number, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
        precondition(covered.contains(number), "line \(number + 1) is not covered")
    }
    precondition(chunker.chunks(of: text, kind: kind) == chunks, "chunking is not deterministic")
    return 0
}
