/// Fitting chunks to the embedding model's context (`TokenLimit`), so that no passage is cut short when it is
/// embedded: a packed piece over the limit is cut at its lines, and a line over it at sentence ends, then at word
/// boundaries, then (a "word" longer than the limit: base64, a minified script) between characters.
extension Chunker.Document {
    /// What a chunk may hold: `limit` tokens as `count` counts them.
    struct Fit {
        var limit: Int
        var count: (Substring) -> Int
    }

    /// A chunk's lines and its text: the lines joined by `\n`, or a run of one line (a piece of a long line).
    struct Part {
        var lines: ClosedRange<Int>
        var text: Substring
    }

    /// `range` (trimmed) as one part when it fits, else cut into parts that each fit.
    func fitted(_ range: ClosedRange<Int>, _ fit: Fit) -> [Part] {
        let costs = range.map { blank[$0] ? 0 : fit.count(lines[$0]) }
        if costs.reduce(0, +) <= fit.limit { return [Part(lines: range, text: joined(range))] }
        if range.count == 1 { return pieces(of: range.lowerBound, fit) }
        // Lines packed in order up to the limit; a line over it alone is cut into pieces.
        var parts: [Part] = []
        var open: ClosedRange<Int>?
        var total = 0
        func close() {
            if let lines = open { parts.append(Part(lines: lines, text: joined(lines))) }
            open = nil
        }
        for (line, cost) in zip(range, costs) where !blank[line] {
            if let lines = open, total + cost <= fit.limit {
                open = lines.lowerBound...line
                total += cost
                continue
            }
            close()
            if cost <= fit.limit {
                open = line...line
                total = cost
            } else {
                parts += pieces(of: line, fit)
            }
        }
        close()
        return parts
    }

    func joined(_ range: ClosedRange<Int>) -> Substring {
        range.count == 1 ? lines[range.lowerBound] : Substring(lines[range].joined(separator: "\n"))
    }

    /// Line `line` cut into runs that each fit and together are exactly the line: at sentence ends where possible,
    /// else at word boundaries, else between characters.
    func pieces(of line: Int, _ fit: Fit) -> [Part] {
        Self.pack(Self.sentences(of: lines[line]), fit, level: 0).map { Part(lines: line...line, text: $0) }
    }

    /// `segments` (adjacent runs of one line, cut after whitespace, so their counts add up) packed in order into
    /// runs of at most `fit.limit` tokens, each as long as it fits: the first run is then about what the model read
    /// of the whole line before, which kept the four public sets' nDCG@10 where cutting into even runs lowered it
    /// (BENCHMARKS.md#passages-over-the-models-context). A segment over the limit is cut finer (level 0:
    /// sentences, 1: words, 2: characters).
    static func pack(_ segments: [Substring], _ fit: Fit, level: Int) -> [Substring] {
        var runs: [Substring] = []
        var open: Substring?
        var total = 0
        for segment in segments {
            let cost = fit.count(segment)
            if let run = open, total + cost <= fit.limit {
                open = run.base[run.startIndex..<segment.endIndex]
                total += cost
                continue
            }
            if let run = open { runs.append(run) }
            open = nil
            if cost <= fit.limit {
                open = segment
                total = cost
            } else {
                runs += level == 0 ? pack(words(of: segment), fit, level: 1) : characterRuns(of: segment, fit)
            }
        }
        if let run = open { runs.append(run) }
        return runs
    }

    /// `text` cut after each sentence end (`.`, `!`, `?`, `…` and closing quotes or brackets, then whitespace; or a
    /// CJK full stop), each sentence keeping the whitespace after it.
    static func sentences(of text: Substring) -> [Substring] {
        var segments: [Substring] = []
        var start = text.startIndex
        var sawEnd = false
        var sawSpace = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if sawSpace && !character.isWhitespace {
                segments.append(text[start..<index])
                start = index
                sawEnd = false
                sawSpace = false
            }
            if character.isWhitespace {
                sawSpace = sawEnd
            } else if "。！？".contains(character) {
                sawEnd = true
                sawSpace = true
            } else if ".!?…".contains(character) {
                sawEnd = true
            } else if !(sawEnd && ")]\"'”’»".contains(character)) {
                sawEnd = false
            }
            index = text.index(after: index)
        }
        if start < text.endIndex { segments.append(text[start..<text.endIndex]) }
        return segments
    }

    /// `text` cut where a run of whitespace ends, each word keeping the whitespace after it (leading whitespace
    /// stays with the first word).
    static func words(of text: Substring) -> [Substring] {
        var segments: [Substring] = []
        var start = text.startIndex
        var previousIsSpace = false
        var sawWord = false
        var index = text.startIndex
        while index < text.endIndex {
            let isSpace = text[index].isWhitespace
            if previousIsSpace && !isSpace && sawWord {
                segments.append(text[start..<index])
                start = index
            }
            previousIsSpace = isSpace
            sawWord = sawWord || !isSpace
            index = text.index(after: index)
        }
        if start < text.endIndex { segments.append(text[start..<text.endIndex]) }
        return segments
    }

    /// `text` cut between characters into the longest runs that fit (found by bisection, as a cut inside a word is
    /// not additive), at least one character each.
    static func characterRuns(of text: Substring, _ fit: Fit) -> [Substring] {
        var runs: [Substring] = []
        var rest = text
        while !rest.isEmpty {
            var low = 1
            var high = rest.count
            while low < high {
                let middle = (low + high + 1) / 2
                if fit.count(rest.prefix(middle)) <= fit.limit { low = middle } else { high = middle - 1 }
            }
            runs.append(rest.prefix(low))
            rest = rest.dropFirst(low)
        }
        return runs
    }
}
