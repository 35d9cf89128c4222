/// A document's lines rebuilt from its stored chunks, for `trove get` and for chunking it again without reading
/// (or extracting) the file.
extension Chunker {
    /// The lines that `chunks` (1-based line ranges and texts, by first line and then in chunk order) were cut
    /// from. Overlapping chunks hold the same lines; lines between chunks are blank (the chunker keeps every other
    /// line); consecutive pieces of one line (a line over the model's context) are joined back into it. Trailing
    /// blank lines are not stored, so the result ends at the last chunk's line.
    package static func rendition(of chunks: [(startLine: Int, endLine: Int, text: String)]) -> [String] {
        var lines: [String] = []
        var pieceLine: Int?
        for chunk in chunks where chunk.startLine >= 1 && chunk.endLine >= chunk.startLine {
            if lines.count < chunk.endLine {
                lines += Array(repeating: "", count: chunk.endLine - lines.count)
            }
            if chunk.startLine == chunk.endLine {
                // The chunker never makes two chunks of one whole line: a second single-line chunk of the same
                // line is its next piece.
                if pieceLine == chunk.startLine {
                    lines[chunk.startLine - 1] += chunk.text
                } else {
                    lines[chunk.startLine - 1] = chunk.text
                }
                pieceLine = chunk.startLine
                continue
            }
            pieceLine = nil
            for (offset, piece) in chunk.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where chunk.startLine - 1 + offset < lines.count {
                lines[chunk.startLine - 1 + offset] = String(piece)
            }
        }
        return lines
    }
}
