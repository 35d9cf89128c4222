import Foundation
import TroveIngest
import TroveSystem

/// Writes cells into a document, keeping the heading path across them.
struct NotebookWriter {
    var builder: DocumentBuilder
    /// The kernel's language, for code fences (`python`); empty when the notebook does not say.
    let language: String
    /// The Markdown headings above the current cell, outermost first.
    private var headings: [(level: Int, text: String)] = []

    /// A writer into `builder`, fencing code in `language`.
    init(builder: DocumentBuilder, language: String) {
        self.builder = builder
        self.language = language
    }

    /// Writes one cell, followed by a blank line.
    mutating func write(_ cell: JSON) throws(ExtractionFailure) {
        let source = Self.text(cell["source"] ?? cell["input"])
        switch cell["cell_type"]?.stringValue {
        case "markdown": try markdown(source)
        case "heading":  // nbformat 3
            let level = Int(cell["level"]?.integerValue ?? 1)
            try heading(level: level, text: source.trimmingCharacters(in: .whitespaces), line: source)
        case "code":
            let fence = cell["language"]?.stringValue ?? language
            try builder.line("```" + fence)
            for line in source.split(separator: "\n", omittingEmptySubsequences: false) { try builder.line(line) }
            try builder.line("```")
            try outputs(cell["outputs"]?.arrayValue ?? [])
        default:
            for line in source.split(separator: "\n", omittingEmptySubsequences: false) { try builder.line(line) }
        }
        builder.blankLine()
    }

    /// Markdown as written, each ATX heading (`## Title`, outside code fences) starting a section.
    private mutating func markdown(_ source: String) throws(ExtractionFailure) {
        var fenced = false
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { fenced.toggle() }
            let level = trimmed.prefix { $0 == "#" }.count
            let rest = trimmed.dropFirst(level)
            if !fenced, (1...6).contains(level), rest.isEmpty || rest.first == " " || rest.first == "\t" {
                let text = rest.trimmingCharacters(in: .whitespaces)
                let title = text.hasSuffix("#") ? String(text.reversed().drop { $0 == "#" }.reversed()) : text
                try heading(level: level, text: title.trimmingCharacters(in: .whitespaces), line: String(line))
            } else {
                try builder.line(line)
            }
        }
    }

    /// Starts a section for a heading of `level`, and writes its line.
    private mutating func heading(level: Int, text: String, line: String) throws(ExtractionFailure) {
        if !text.isEmpty {
            headings.removeAll { $0.level >= level }
            headings.append((level, text))
            builder.heading(headings.map(\.text))
        }
        try builder.line(line)
    }

    /// A code cell's text outputs (streams, `text/plain` results, tracebacks without their colours), at most
    /// `NotebookExtractor.outputCap` bytes, cut at a character and marked.
    private mutating func outputs(_ outputs: [JSON]) throws(ExtractionFailure) {
        var text = ""
        for output in outputs {
            let piece: String? =
                switch output["output_type"]?.stringValue {
                case "stream": Self.text(output["text"])
                case "execute_result", "display_data", "pyout":
                    Self.text(output["data"]?["text/plain"] ?? output["text"])
                // A traceback is an array of lines (other outputs' pieces carry their own newlines).
                case "error", "pyerr":
                    output["traceback"]?.arrayValue?.compactMap(\.stringValue).joined(separator: "\n")
                default: nil
                }
            guard let piece, !piece.isEmpty else { continue }
            text += Self.withoutEscapes(piece)
            if !text.hasSuffix("\n") { text += "\n" }
            if text.utf8.count > NotebookExtractor.outputCap { break }
        }
        guard !text.isEmpty else { return }
        var kept = Substring(text)
        if text.utf8.count > NotebookExtractor.outputCap {
            var end = text.utf8.index(text.startIndex, offsetBy: NotebookExtractor.outputCap)
            while !text.unicodeScalars.indices.contains(end) { end = text.utf8.index(before: end) }
            kept = text[..<end]
        }
        var lines = kept.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        for line in lines { try builder.line(line) }
        if kept.endIndex != text.endIndex {
            try builder.line("[output cut at \(ByteSize.format(Int64(NotebookExtractor.outputCap)))]")
        }
    }

    /// A notebook string: one string, or an array of strings to join (both forms are valid nbformat).
    static func text(_ value: JSON?) -> String {
        if let string = value?.stringValue { return string }
        return value?.arrayValue?.compactMap(\.stringValue).joined() ?? ""
    }

    /// `text` without ANSI escape sequences (tracebacks are coloured with them).
    static func withoutEscapes(_ text: String) -> String {
        guard text.contains("\u{1B}") else { return text }
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else {
                result.append(scalar)
                continue
            }
            // CSI: ESC [ parameters… final byte (@ to ~).
            guard scalars.next() == "[" else { continue }
            while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
        }
        return String(result)
    }
}
