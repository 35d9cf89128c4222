import Foundation
import TroveKit

/// Renders a search hit for a person: `path:start-end  score  heading`, then the best-matching lines.
package struct HitFormatter {
    /// The query, whose words are highlighted.
    package var query: String
    /// ANSI colour.
    package var color: Bool
    /// Paths under it are shown relative to it.
    package var currentDirectory: String
    /// Lines of the passage shown under each hit.
    package var snippetLines = 3
    /// Characters per snippet line before it is cut with `…`.
    package var lineWidth = 160
    /// Adds a line with the vector, keyword and fused scores and ranks.
    package var explain = false
    /// Shows control characters of paths, headings and text escaped (output to a terminal; see `TerminalText`).
    package var escapeControls = false

    /// A formatter with every choice made.
    package init(
        query: String, color: Bool, currentDirectory: String, explain: Bool = false, escapeControls: Bool = false
    ) {
        self.query = query
        self.color = color
        self.currentDirectory = currentDirectory
        self.explain = explain
        self.escapeControls = escapeControls
    }

    /// The hit's head line, its scores with `explain`, and its best lines.
    package func format(_ hit: SearchHit) -> String {
        let location = "\(displayPath(hit.path)):\(hit.startLine)-\(hit.endLine)"
        // The lines stay first for editors and scripts; where the passage is in the original follows them.
        var head = style(location, "1;35") + (hit.locator.map { " " + style($0.label, "35") } ?? "")
        head += "  \(String(format2: hit.score))"
        if !hit.heading.isEmpty { head += "  " + style(safe(hit.heading), "36") }
        let snippet = Snippet.lines(of: hit.text, query: query, count: snippetLines)
            .map { "    " + highlight(truncate(safe($0))) }
        let explanation = explain ? [style("    " + Self.explanation(hit), "2")] : []
        return ([head] + explanation + snippet).joined(separator: "\n") + "\n"
    }

    /// `vector 0.43 (#2)  keyword 7.81 (#1)  fused 0.98`; `-` where the passage was not a candidate of that ranking.
    package static func explanation(_ hit: SearchHit) -> String {
        func rank(_ value: Int?) -> String { value.map { " (#\($0))" } ?? "" }
        let vector = hit.vectorScore.map { String(format2: $0) + rank(hit.vectorRank) } ?? "-"
        let keyword = hit.keywordScore.map { String(format2: Float($0)) + rank(hit.keywordRank) } ?? "-"
        var text = "vector \(vector)  keyword \(keyword)"
        if let fused = hit.fusedScore { text += "  fused \(String(format2: Float(fused)))" }
        return text
    }

    /// Paths under the current folder are shown relative to it, the way grep and ripgrep do.
    package func displayPath(_ path: String) -> String {
        safe(Self.displayPath(path, from: currentDirectory), keepingNewlines: false)
    }

    /// `path` relative to `directory` when under it, as grep prints it; otherwise as it is.
    package static func displayPath(_ path: String, from directory: String) -> String {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    private func safe(_ text: String, keepingNewlines: Bool = true) -> String {
        escapeControls ? TerminalText.escaped(text, keepingNewlines: keepingNewlines) : text
    }

    private func truncate(_ line: String) -> String {
        // Counting bytes first: a line of no more bytes than the width has no more Characters, and most are short.
        line.utf8.count <= lineWidth || line.count <= lineWidth ? line : String(line.prefix(lineWidth - 1)) + "…"
    }

    private func style(_ text: String, _ code: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Bold for the query's words where they appear in the line.
    private func highlight(_ line: String) -> String {
        guard color else { return line }
        let terms = Set(Snippet.words(query))
        var result = ""
        var word = ""
        func flush() {
            result += terms.contains(word.lowercased()) ? style(word, "1") : word
            word = ""
        }
        for character in line {
            if character.isLetter || character.isNumber {
                word.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}

extension String {
    /// A score with two decimals.
    package init(format2 value: Float) {
        let scaled = (Double(value) * 100).rounded() / 100
        var text = String(scaled)
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < 2 { text += String(repeating: "0", count: 2 - decimals) }
        }
        self = text
    }
}
