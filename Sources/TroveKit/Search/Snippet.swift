import Foundation

/// Picks the lines of a passage worth showing: under a search hit, or quoted in an extractive answer.
package enum Snippet {
    /// Up to `count` lines, in passage order: those sharing the most words with the query, else the first
    /// lines of prose (headings and blank lines are left out). Lines end at LF; a CR before it is trimmed.
    package static func lines(of text: String, query: String, count: Int) -> [String] {
        let terms = Set(words(query))
        // Lines are cut at LF bytes rather than Characters: grapheme breaking made this ~130 ns a byte, most of
        // the time `trove search` spends printing (and "\r\n" is one Character, so CRLF text was one line).
        var scored: [(offset: Int, line: String, overlap: Int)] = []
        let utf8 = text.utf8
        var start = utf8.startIndex
        var offset = 0
        while true {
            let end = utf8[start...].firstIndex(of: 0x0A) ?? utf8.endIndex
            let line = trimmed(text.unicodeScalars[start..<end])
            if !line.isEmpty && !line.hasPrefix("#") && !line.hasPrefix("```") {
                scored.append((offset, line, terms.isEmpty ? 0 : overlap(line, terms)))
            }
            guard end < utf8.endIndex else { break }
            start = utf8.index(after: end)
            offset += 1
        }
        guard !scored.isEmpty else { return [] }
        let matching = scored.filter { $0.overlap > 0 }
        let chosen =
            matching.isEmpty
            ? Array(scored.prefix(count))
            : Array(matching.sorted { ($0.overlap, -$0.offset) > ($1.overlap, -$1.offset) }.prefix(count))
                .sorted { $0.offset < $1.offset }
        return chosen.map(\.line)
    }

    /// Lowercased words of three letters or more that carry meaning, the ones worth matching.
    package static func words(_ text: String) -> [String] {
        var words: [String] = []
        forEachWord(in: text) { word, ascii in
            if (ascii ? word.utf8.count : word.count) >= 3 && !StopWords.lineWords.contains(word) { words.append(word) }
        }
        return words
    }

    /// How many of `terms` (words of `words`) occur in `line`.
    private static func overlap(_ line: String, _ terms: Set<String>) -> Int {
        // A term is a word of three letters or more and no stop word, so only membership needs checking.
        var found: [String] = []
        forEachWord(in: line) { word, _ in
            if terms.contains(word) && !found.contains(word) { found.append(word) }
        }
        return found.count
    }

    /// Calls `body` with every word of `text` lowercased, and whether it is ASCII. Scalar by scalar, each lowercased
    /// as `String.lowercased()` maps it, a word ending at a mapped scalar that is not part of one: not Characters,
    /// whose grapheme breaking made this ~4% of a cold search. Marks stay inside a word, so a decomposed "é" splits
    /// where the composed one does. The word's UTF-8 collects in one buffer: appending scalars to a String cost more.
    private static func forEachWord(in text: String, _ body: (String, Bool) -> Void) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var ascii = true
        func end() {
            guard !bytes.isEmpty else { return }
            body(String(decoding: bytes, as: UTF8.self), ascii)
            bytes.removeAll(keepingCapacity: true)
            ascii = true
        }
        func add(_ scalar: Unicode.Scalar) {
            guard isWordScalar(scalar) else { return end() }
            if scalar.isASCII {
                bytes.append(UInt8(scalar.value))
            } else {
                ascii = false
                bytes.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                let value = UInt8(scalar.value)
                add(Unicode.Scalar((0x41...0x5A).contains(value) ? value + 0x20 : value))
            } else {
                for mapped in scalar.properties.lowercaseMapping.unicodeScalars { add(mapped) }
            }
        }
        end()
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (0x61...0x7a).contains(value) || (0x41...0x5a).contains(value) || (0x30...0x39).contains(value)
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber: return true
        default: return properties.isAlphabetic
        }
    }

    /// `line` without the spaces, tabs and carriage returns at either end.
    private static func trimmed(_ scalars: Substring.UnicodeScalarView) -> String {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\r" || scalar.properties.generalCategory == .spaceSeparator
        }
        guard let first = scalars.firstIndex(where: { !isBlank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isBlank($0) })!
        return String(scalars[first...last])
    }
}
