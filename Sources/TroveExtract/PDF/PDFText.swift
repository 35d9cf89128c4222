import TroveIngest

/// `pdftotext`'s output read into a document: its default mode (reading order, never `-layout`, which interleaves
/// two columns) writes each page's text followed by one form feed, blank pages included, so splitting at form feeds
/// gives physical pages 1…N, the numbers `#page=N` means. Pure, so the fuzz target drives it directly.
package enum PDFText {
    /// The pages of `output`, each as lines without trailing blank ones; a page without text is empty.
    package static func pages(_ output: [UInt8]) -> [[String]] {
        var pieces = output.split(separator: 0x0C, omittingEmptySubsequences: false)
        // Text after the last form feed is not a page (pdftotext ends every page with one); keep it only if it
        // holds text, as a truncated run may leave the last page without its form feed.
        if let last = pieces.last, last.allSatisfy({ $0 == 0x0A || $0 == 0x20 || $0 == 0x0D }) { pieces.removeLast() }
        return pieces.map { piece in
            var lines = Chunker.lines(of: String(decoding: piece, as: UTF8.self)).map(String.init)
            while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
            while let first = lines.first, first.allSatisfy(\.isWhitespace) { lines.removeFirst() }
            return lines
        }
    }

    /// The document of `pages` with `outline`'s headings placed: each item on the first line of its page that reads
    /// like its title (after the previous item's), else at the top of its page. Every page starts a hard boundary
    /// and a `page` locator. Throws `damaged` past the part or output caps.
    package static func document(
        pages: [[String]], outline: [PDFOutline.Item], extractor: String, limits: ExtractionLimits
    ) throws(ExtractionFailure) -> ExtractedDocument {
        var builder = DocumentBuilder(extractor: extractor, limits: limits)
        var itemsByPage: [Int: [PDFOutline.Item]] = [:]
        for item in outline where item.page >= 1 && item.page <= pages.count { itemsByPage[item.page, default: []].append(item) }
        var path: [String] = []
        for (index, lines) in pages.enumerated() {
            builder.blankLine()
            try builder.boundary(.page, number: index + 1)
            var pending = itemsByPage[index + 1] ?? []
            // Items that match no line of the page are placed at its top, in order (the last one wins the line).
            let matches = matchLines(pending, in: lines)
            for (item, line) in zip(pending, matches) where line == nil {
                path = Array(path.prefix(item.level)) + [item.title]
                builder.heading(path)
            }
            pending = zip(pending, matches).filter { $0.1 != nil }.map(\.0)
            var placed = zip(pending, matches.compactMap { $0 }).makeIterator()
            var next = placed.next()
            for (number, line) in lines.enumerated() {
                while let (item, at) = next, at == number {
                    path = Array(path.prefix(item.level)) + [item.title]
                    builder.heading(path)
                    next = placed.next()
                }
                try builder.line(line)
            }
        }
        return builder.finish()
    }

    /// For each item, the index of the first line after the previous match that reads like its title, or nil.
    static func matchLines(_ items: [PDFOutline.Item], in lines: [String]) -> [Int?] {
        let normalized = lines.map(normalize)
        var from = 0
        return items.map { item in
            let title = normalize(item.title)
            guard !title.isEmpty, from < normalized.count else { return nil }
            for index in from..<normalized.count {
                let line = normalized[index]
                // A title may fill the line, begin it, or be wrapped over two lines (the line begins the title).
                if line == title || line.hasPrefix(title) || (line.count >= 8 && title.hasPrefix(line)) {
                    from = index + 1
                    return index
                }
            }
            return nil
        }
    }

    /// Lowercased, whitespace collapsed.
    static func normalize(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Words on the pages (runs of non-whitespace), for telling a scanned PDF from a text one.
    package static func wordCount(_ pages: [[String]]) -> Int {
        pages.reduce(0) { sum, lines in
            sum + lines.reduce(0) { $0 + $1.split(whereSeparator: \.isWhitespace).count }
        }
    }
}
