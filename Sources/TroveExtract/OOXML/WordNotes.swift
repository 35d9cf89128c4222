import TroveIngest

/// A Word document's footnotes or endnotes part: each note's text by id (the separators Word keeps there left out).
struct WordNotes {
    private(set) var notes: [String: String] = [:]

    /// The notes of `part`; none when there is no such part.
    init(part: String?, in archive: inout ZipArchive, limits: ExtractionLimits) throws(ExtractionFailure) {
        guard let part, let bytes = try archive.read(part) else { return }
        let reader = Reader()
        try XMLStream.parse(bytes, part: part, limits: limits, into: reader)
        notes = reader.notes
    }

    /// Word's default endnote numbering: i, ii, iii, iv…
    static func roman(_ number: Int) -> String {
        let numerals: [(Int, String)] = [
            (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
            (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
        ]
        var rest = number
        var result = ""
        for (value, numeral) in numerals {
            while rest >= value {
                result += numeral
                rest -= value
            }
        }
        return result
    }

    private final class Reader: XMLHandler {
        var notes: [String: String] = [:]
        var id: String?
        var text = ""
        var inText = false

        func start(_ name: String, namespace: String, attributes: [String: String]) {
            guard DOCXExtractor.isWord(namespace) else { return }
            switch name {
            case "footnote", "endnote":
                // Separators have a type; real notes have none (or "normal").
                id = (attributes["type"] ?? "normal") == "normal" ? attributes["id"] : nil
                text = ""
            case "t": inText = true
            case "p", "tab", "br": if id != nil { text += " " }
            default: break
            }
        }

        func end(_ name: String, namespace: String) {
            guard DOCXExtractor.isWord(namespace) else { return }
            switch name {
            case "t": inText = false
            case "footnote", "endnote":
                if let id, notes[id] == nil { notes[id] = TextFlow.squeezed(text) }
                id = nil
            default: break
            }
        }

        func text(_ text: String) {
            if inText, id != nil { self.text += text }
        }
    }
}
