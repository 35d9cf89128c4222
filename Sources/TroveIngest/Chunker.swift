/// One passage of a document, the unit that is embedded and returned by search.
public struct Chunk: Sendable, Equatable {
    /// 0-based position in the document.
    public var ordinal: Int
    /// First line, 1-based.
    public var startLine: Int
    /// Last line, 1-based, inclusive.
    public var endLine: Int
    /// Headings above the chunk, outermost first, e.g. `["Deploy", "Keys"]`.
    public var headingPath: [String]
    public var text: String

    public init(ordinal: Int, startLine: Int, endLine: Int, headingPath: [String], text: String) {
        self.ordinal = ordinal
        self.startLine = startLine
        self.endLine = endLine
        self.headingPath = headingPath
        self.text = text
    }
}

/// Parameters of the chunker; part of the index fingerprint.
public struct ChunkerConfiguration: Sendable, Equatable {
    /// Bumped whenever chunk boundaries for the same input change.
    public static let version = 1
    /// Estimated tokens a chunk may hold.
    public var maxTokens: Int
    /// Fraction of `maxTokens` repeated from the end of one chunk at the start of the next when a section is split.
    public var overlap: Double

    public init(maxTokens: Int = 400, overlap: Double = 0.12) {
        self.maxTokens = maxTokens
        self.overlap = overlap
    }

    /// The parameters as a stable string for the index manifest, e.g. `maxTokens=400,overlap=0.12` (the chunker
    /// `version` is recorded separately).
    public var fingerprint: String { "maxTokens=\(maxTokens),overlap=\(overlap)" }
}

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
/// 4. A chunk spans whole lines: its text is lines `startLine...endLine` joined by `\n`, without leading or
///    trailing blank lines. Line breaks are LF, CRLF or CR, counted as an editor does. Every non-blank line is in
///    some chunk.
public struct Chunker: Sendable {
    public var configuration: ChunkerConfiguration

    public init(configuration: ChunkerConfiguration = ChunkerConfiguration()) { self.configuration = configuration }

    /// The chunks of `text`, ordinals from 0, in document order.
    public func chunks(of text: String, kind: DocumentKind) -> [Chunk] {
        let lines = Self.lines(of: text)
        let document = Document(lines: lines)
        let sections: [Section]
        switch kind {
        case .markdown: sections = document.sections(syntax: .markdown)
        case .org: sections = document.sections(syntax: .org)
        case .restructuredText: sections = document.sections(syntax: .restructuredText)
        case .plainText, .code: sections = document.sections(syntax: .plain)
        }
        let budget = max(1, configuration.maxTokens)
        let overlapBudget = Int((Double(budget) * min(max(configuration.overlap, 0), 0.5)).rounded(.down))
        var chunks: [Chunk] = []
        for section in sections {
            for piece in document.pack(section, budget: budget, overlapBudget: overlapBudget) {
                guard let trimmed = document.trimmed(piece) else { continue }
                chunks.append(
                    Chunk(
                        ordinal: chunks.count, startLine: trimmed.lowerBound + 1, endLine: trimmed.upperBound + 1,
                        headingPath: section.path, text: lines[trimmed].joined(separator: "\n")))
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

/// Heading and fence rules of one markup.
private enum Syntax {
    case markdown, org, restructuredText, plain
}

/// A run of lines kept together when it fits.
private struct Block {
    var lines: ClosedRange<Int>
    /// Code fence or front matter: split only as a last resort, never repeated as overlap.
    var isVerbatim = false
    var isHeading = false
}

/// A heading and the blocks up to the next heading.
private struct Section {
    var path: [String]
    var blocks: [Block] = []
}

/// A packed piece before trimming.
private struct Piece {
    var lines: ClosedRange<Int>
    var tokens: Int
}

private struct Document {
    let lines: [Substring]
    let tokens: [Int]
    let blank: [Bool]

    init(lines: [Substring]) {
        self.lines = lines
        tokens = lines.map { TokenEstimate.count($0) }
        // Blank: nothing but whitespace, a form feed (a page break in old text and in GNU-style source) or a
        // no-break space included, so no chunk is ever only that. Both tests stop at the first visible character.
        blank = lines.map { line in
            line.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0B || $0 == 0x0C } || line.allSatisfy(\.isWhitespace)
        }
    }

    func tokens(_ range: ClosedRange<Int>) -> Int { tokens[range].reduce(0, +) }

    func trimmed(_ range: ClosedRange<Int>) -> ClosedRange<Int>? {
        var low = range.lowerBound
        var high = range.upperBound
        while low <= high && blank[low] { low += 1 }
        while high >= low && blank[high] { high -= 1 }
        return low <= high ? low...high : nil
    }

    // MARK: Sections

    func sections(syntax: Syntax) -> [Section] {
        var sections = [Section(path: [])]
        var stack: [(level: Int, title: String)] = []
        var paragraphStart: Int?
        // rst ranks title styles by first appearance; an overlined style differs from the same underline alone.
        var rstLevels: [Int] = []

        func flush(before end: Int) {
            if let start = paragraphStart, start < end {
                sections[sections.count - 1].blocks.append(Block(lines: start...(end - 1)))
            }
            paragraphStart = nil
        }
        func startSection(level: Int, title: String, lines range: ClosedRange<Int>) {
            while let top = stack.last, top.level >= level { stack.removeLast() }
            stack.append((level, title))
            sections.append(
                Section(
                    path: stack.map(\.title).filter { !$0.isEmpty }, blocks: [Block(lines: range, isHeading: true)]))
        }

        var i = 0
        while i < lines.count {
            if i == 0, syntax == .markdown, let end = frontMatterEnd() {
                sections[0].blocks.append(Block(lines: 0...end, isVerbatim: true))
                i = end + 1
                continue
            }
            if let end = fenceEnd(at: i, syntax: syntax) {
                flush(before: i)
                sections[sections.count - 1].blocks.append(Block(lines: i...end, isVerbatim: true))
                i = end + 1
                continue
            }
            if blank[i] {
                flush(before: i)
                i += 1
                continue
            }
            switch syntax {
            case .markdown, .org:
                if let (level, title) = syntax == .markdown ? atxHeading(lines[i]) : orgHeading(lines[i]) {
                    flush(before: i)
                    startSection(level: level, title: title, lines: i...i)
                    i += 1
                    continue
                }
            case .restructuredText:
                if i + 2 < lines.count, let mark = rstAdornment(lines[i]), rstAdornment(lines[i + 2]) == mark,
                    rstAdornment(lines[i + 1]) == nil, !blank[i + 1]
                {
                    flush(before: i)
                    let style = Int(mark) | 0x100
                    if !rstLevels.contains(style) { rstLevels.append(style) }
                    let level = rstLevels.firstIndex(of: style)! + 1
                    startSection(level: level, title: String(lines[i + 1].trimmingSpaces), lines: i...(i + 2))
                    i += 3
                    continue
                }
                if i + 1 < lines.count, let mark = rstAdornment(lines[i + 1]), rstAdornment(lines[i]) == nil,
                    lines[i + 1].utf8.count >= lines[i].trimmingSpaces.utf8.count
                {
                    flush(before: i)
                    if !rstLevels.contains(Int(mark)) { rstLevels.append(Int(mark)) }
                    let level = rstLevels.firstIndex(of: Int(mark))! + 1
                    startSection(level: level, title: String(lines[i].trimmingSpaces), lines: i...(i + 1))
                    i += 2
                    continue
                }
            case .plain:
                break
            }
            if paragraphStart == nil { paragraphStart = i }
            i += 1
        }
        flush(before: lines.count)
        return sections.filter { !$0.blocks.isEmpty }
    }

    /// `---` on line 1 closed by `---` or `...`: the index of the closing line.
    func frontMatterEnd() -> Int? {
        guard let first = lines.first, first.trimmingTrailingSpaces == "---" else { return nil }
        var j = 1
        while j < lines.count {
            let line = lines[j].trimmingTrailingSpaces
            if line == "---" || line == "..." { return j }
            j += 1
        }
        return nil
    }

    /// When line `i` opens a fence: the index of its closing line (the last line when it never closes).
    func fenceEnd(at i: Int, syntax: Syntax) -> Int? {
        switch syntax {
        case .markdown:
            let line = lines[i].trimmingSpaces.utf8
            guard let mark = line.first, mark == UInt8(ascii: "`") || mark == UInt8(ascii: "~") else { return nil }
            let length = line.prefix { $0 == mark }.count
            guard length >= 3 else { return nil }
            if mark == UInt8(ascii: "`") && line.dropFirst(length).contains(UInt8(ascii: "`")) { return nil }
            var j = i + 1
            while j < lines.count {
                let candidate = lines[j].trimmingSpaces.utf8
                let run = candidate.prefix { $0 == mark }.count
                if run >= length && run == candidate.count { return j }
                j += 1
            }
            return lines.count - 1
        case .org:
            let line = lines[i].trimmingSpaces.lowercased()
            guard line.hasPrefix("#+begin_") else { return nil }
            var j = i + 1
            while j < lines.count {
                if lines[j].trimmingSpaces.lowercased().hasPrefix("#+end_") { return j }
                j += 1
            }
            return lines.count - 1
        case .restructuredText, .plain:
            return nil
        }
    }

    /// `## Title ##` → (2, "Title").
    func atxHeading(_ line: Substring) -> (Int, String)? {
        let bytes = Array(line.utf8)
        var i = 0
        while i < bytes.count && i < 3 && bytes[i] == UInt8(ascii: " ") { i += 1 }
        var level = 0
        while i < bytes.count && bytes[i] == UInt8(ascii: "#") {
            level += 1
            i += 1
        }
        guard (1...6).contains(level), i == bytes.count || bytes[i] == UInt8(ascii: " ") || bytes[i] == 9 else {
            return nil
        }
        var title = Array(bytes[i...])
        while let last = title.last, last == UInt8(ascii: " ") || last == 9 { title.removeLast() }
        // A closing sequence of `#` counts only after a space (or when it is all there is).
        var end = title.count
        while end > 0 && title[end - 1] == UInt8(ascii: "#") { end -= 1 }
        if end < title.count && (end == 0 || title[end - 1] == UInt8(ascii: " ") || title[end - 1] == 9) {
            title.removeSubrange(end...)
        }
        return (level, String(decoding: title, as: UTF8.self).trimmingSpaces.description)
    }

    /// `** Title` → (2, "Title").
    func orgHeading(_ line: Substring) -> (Int, String)? {
        let stars = line.prefix { $0 == "*" }.count
        guard stars > 0, line.dropFirst(stars).first == " " else { return nil }
        return (stars, String(line.dropFirst(stars).trimmingSpaces))
    }

    /// The character of an rst adornment line (`=====`), or nil.
    func rstAdornment(_ line: Substring) -> UInt8? {
        let bytes = line.trimmingTrailingSpaces.utf8
        guard let mark = bytes.first, bytes.count >= 2, Array("=-~^\"'`#*+:._".utf8).contains(mark),
            bytes.allSatisfy({ $0 == mark })
        else { return nil }
        return mark
    }

    // MARK: Packing

    /// A unit: lines that go into a chunk together.
    struct Unit {
        var lines: ClosedRange<Int>
        var tokens: Int
        var overlappable: Bool
        var isHeading: Bool
        var splittable: Bool
    }

    func lineUnits(_ range: ClosedRange<Int>, overlappable: Bool) -> [Unit] {
        range.filter { !blank[$0] }.map {
            Unit(lines: $0...$0, tokens: tokens[$0], overlappable: overlappable, isHeading: false, splittable: false)
        }
    }

    func pack(_ section: Section, budget: Int, overlapBudget: Int) -> [ClosedRange<Int>] {
        var units: [Unit] = []
        for block in section.blocks {
            let count = tokens(block.lines)
            if count <= budget || block.lines.count == 1 {
                units.append(
                    Unit(
                        lines: block.lines, tokens: count, overlappable: !block.isVerbatim, isHeading: block.isHeading,
                        splittable: !block.isVerbatim && block.lines.count > 1))
            } else {
                units += lineUnits(block.lines, overlappable: !block.isVerbatim)
            }
        }
        var overlappable = [Bool](repeating: true, count: 0)
        if let first = units.first, let last = units.last {
            overlappable = [Bool](repeating: true, count: last.lines.upperBound - first.lines.lowerBound + 1)
            for unit in units where !unit.overlappable {
                for line in unit.lines { overlappable[line - first.lines.lowerBound] = false }
            }
        }
        let base = units.first?.lines.lowerBound ?? 0

        var pieces: [ClosedRange<Int>] = []
        var current: Piece?
        var currentIsHeadingOnly = false
        var index = 0
        while index < units.count {
            let unit = units[index]
            guard var piece = current else {
                current = Piece(lines: unit.lines, tokens: unit.tokens)
                currentIsHeadingOnly = unit.isHeading
                index += 1
                continue
            }
            if piece.tokens + unit.tokens <= budget {
                piece.lines = piece.lines.lowerBound...unit.lines.upperBound
                piece.tokens += unit.tokens
                current = piece
                currentIsHeadingOnly = currentIsHeadingOnly && unit.isHeading
                index += 1
                continue
            }
            if currentIsHeadingOnly && unit.splittable {
                // Keep a heading with the start of its text rather than alone: split the paragraph into lines.
                units.replaceSubrange(index...index, with: lineUnits(unit.lines, overlappable: true))
                continue
            }
            pieces.append(piece.lines)
            current = Piece(lines: unit.lines, tokens: unit.tokens)
            currentIsHeadingOnly = unit.isHeading
            if let start = overlapStart(piece, overlappable: overlappable, base: base, budget: overlapBudget) {
                let extra = tokens(start...(piece.lines.upperBound))
                if extra + unit.tokens <= budget {
                    current = Piece(lines: start...unit.lines.upperBound, tokens: extra + unit.tokens)
                    currentIsHeadingOnly = false
                }
            }
            index += 1
        }
        if let current { pieces.append(current.lines) }
        return pieces
    }

    /// The first line of the overlap taken from the end of `piece`: whole lines, at most `budget` tokens, never
    /// verbatim lines, never the whole piece; nil when no line fits.
    func overlapStart(_ piece: Piece, overlappable: [Bool], base: Int, budget: Int) -> Int? {
        guard budget > 0 else { return nil }
        var total = 0
        var start: Int?
        var line = piece.lines.upperBound
        while line > piece.lines.lowerBound {
            guard overlappable[line - base] else { break }
            if !blank[line] {
                guard total + tokens[line] <= budget else { break }
                total += tokens[line]
                start = line
            }
            line -= 1
        }
        return start
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        let s = self[...]
        let start = s.firstIndex { $0 != " " && $0 != "\t" } ?? s.endIndex
        let end = s.lastIndex { $0 != " " && $0 != "\t" }.map { s.index(after: $0) } ?? start
        return start < end ? Substring(s[start..<end]) : Substring(s[start..<start])
    }

    /// Without trailing spaces and tabs.
    fileprivate var trimmingTrailingSpaces: Substring {
        let s = self[...]
        let end = s.lastIndex { $0 != " " && $0 != "\t" }.map { s.index(after: $0) } ?? s.startIndex
        return Substring(s[s.startIndex..<end])
    }
}

/// Conservative token estimate (over-counts rather than under-counts for WordPiece/BPE models).
///
/// The rule, over UTF-8: a run of ASCII letters and digits of length n counts `ceil(n/4) + 1`; every other
/// printable ASCII character (punctuation, symbols) counts 1; every non-ASCII scalar counts 1 (CJK, accents,
/// emoji); spaces, tabs and line breaks count 0. Real tokenizers give about 1.3 tokens per English word; this gives
/// about 2, so a chunk within the estimate fits a model's window with room to spare.
public enum TokenEstimate {
    public static func count<S: StringProtocol>(_ text: S) -> Int {
        var total = 0
        var run = 0
        for byte in text.utf8 {
            if byte < 0x80 {
                let isAlphanumeric =
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                if isAlphanumeric {
                    run += 1
                    continue
                }
                if run > 0 {
                    total += (run + 3) / 4 + 1
                    run = 0
                }
                if byte > 0x20 && byte != 0x7F { total += 1 }
            } else {
                if run > 0 {
                    total += (run + 3) / 4 + 1
                    run = 0
                }
                if byte & 0xC0 != 0x80 { total += 1 }
            }
        }
        if run > 0 { total += (run + 3) / 4 + 1 }
        return total
    }
}
