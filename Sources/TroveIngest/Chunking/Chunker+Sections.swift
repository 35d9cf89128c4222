/// Cutting a document into sections at the headings of its markup, and into blocks within them.
extension Chunker.Document {
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

