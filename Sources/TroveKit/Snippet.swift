import Foundation

/// Picks the lines of a passage worth showing: under a search hit, or quoted in an extractive answer.
public enum Snippet {
    /// Up to `count` lines, in passage order: those sharing the most words with the query, else the first
    /// lines of prose (headings and blank lines are left out).
    public static func lines(of text: String, query: String, count: Int) -> [String] {
        let terms = Set(words(query))
        let candidates = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { trimmed($0) }
            .enumerated()
            .filter { !$0.element.isEmpty && !$0.element.hasPrefix("#") && !$0.element.hasPrefix("```") }
        guard !candidates.isEmpty else { return [] }
        let scored = candidates.map { item in
            (offset: item.offset, line: item.element, overlap: Set(words(item.element)).intersection(terms).count)
        }
        let matching = scored.filter { $0.overlap > 0 }
        let chosen =
            matching.isEmpty
            ? Array(scored.prefix(count))
            : Array(matching.sorted { ($0.overlap, -$0.offset) > ($1.overlap, -$1.offset) }.prefix(count))
                .sorted { $0.offset < $1.offset }
        return chosen.map(\.line)
    }

    /// Lowercased words of three letters or more that carry meaning, the ones worth matching.
    public static func words(_ text: String) -> [String] {
        // Split on Unicode scalars, not Characters: grapheme breaking made this ~4% of a cold `trove search`.
        // Marks stay inside a word, so a decomposed "é" splits where the composed one does.
        text.lowercased().unicodeScalars.split { !isWordScalar($0) }.map { String(Substring($0)) }
            .filter { $0.count >= 3 && !stopWords.contains($0) }
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

    /// `line` without the spaces and tabs at either end.
    private static func trimmed(_ line: Substring) -> String {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = line.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isBlank($0) })!
        return String(scalars[first...last])
    }

    /// Words so common that sharing them says nothing about a line.
    static let stopWords: Set<String> = [
        "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "has", "have", "her", "his", "how",
        "its", "our", "out", "was", "who", "why", "what", "when", "where", "which", "with", "this", "that", "these",
        "those", "from", "into", "about", "there", "their", "them", "then", "than", "does", "did", "doing", "would",
        "should", "could", "will", "been", "being", "were", "your", "yours", "my", "mine",
    ]
}
