import Foundation

/// Picks the lines of a passage worth showing: under a search hit, or quoted in an extractive answer.
public enum Snippet {
    /// Up to `count` lines, in passage order: those sharing the most words with the query, else the first
    /// lines of prose (headings and blank lines are left out).
    public static func lines(of text: String, query: String, count: Int) -> [String] {
        let terms = Set(words(query))
        let candidates = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
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
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
            .filter { $0.count >= 3 && !stopWords.contains($0) }
    }

    /// Words so common that sharing them says nothing about a line.
    static let stopWords: Set<String> = [
        "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "has", "have", "her", "his", "how",
        "its", "our", "out", "was", "who", "why", "what", "when", "where", "which", "with", "this", "that", "these",
        "those", "from", "into", "about", "there", "their", "them", "then", "than", "does", "did", "doing", "would",
        "should", "could", "will", "been", "being", "were", "your", "yours", "my", "mine",
    ]
}
