/// Chunking a document an extractor read (PDF, HTML, DOCX, …): its structure is given, never parsed from the text.
extension Chunker {
    /// The chunks of an extracted document. Sections start at its headings; a hard boundary (page, slide, message,
    /// cell) starts a new section with the same heading path, so no chunk spans two pages and no overlap is carried
    /// across one; each chunk carries the locator range of its lines. Packing, budget and overlap are those of text
    /// files, so `ChunkerConfiguration.version` covers both.
    package func chunks(of extracted: ExtractedDocument) -> [Chunk] {
        let document = Document(lines: extracted.lines.map { Substring($0) })
        return pack(document, document.sections(of: extracted), locators: extracted.locators)
    }
}

extension Chunker.Document {
    /// Sections cut at `extracted`'s headings and hard boundaries; blocks are runs of non-blank lines.
    func sections(of extracted: ExtractedDocument) -> [Section] {
        var headings = extracted.headings.filter { $0.line >= 0 && $0.line < lines.count }[...]
        var cuts = Set(extracted.boundaries.filter { $0 > 0 && $0 < lines.count })
        for heading in headings where heading.line > 0 { cuts.insert(heading.line) }
        var sections: [Section] = []
        var current = Section(path: [])
        var title: String?
        var paragraphStart: Int?

        func flush(before end: Int) {
            guard let start = paragraphStart, start < end else { return }
            // A heading's own line, alone before the section's text, is kept with that text as Markdown's is.
            let isHeading = current.blocks.isEmpty && start == end - 1 && title == String(lines[start]).trimmed
            current.blocks.append(Block(lines: start...(end - 1), isHeading: isHeading))
            paragraphStart = nil
        }

        for line in 0..<lines.count {
            if cuts.contains(line) {
                flush(before: line)
                if !current.blocks.isEmpty { sections.append(current) }
                current = Section(path: current.path)
                title = nil
            }
            while let heading = headings.first, heading.line <= line {
                current.path = heading.path.filter { !$0.isEmpty }
                title = heading.path.last?.trimmed
                headings.removeFirst()
            }
            if blank[line] {
                flush(before: line)
            } else if paragraphStart == nil {
                paragraphStart = line
            }
        }
        flush(before: lines.count)
        if !current.blocks.isEmpty { sections.append(current) }
        return sections
    }
}

extension String {
    /// Without leading and trailing whitespace.
    fileprivate var trimmed: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
