import TroveIngest

/// A Word document's paragraph styles (`word/styles.xml`): which are headings, and of what level. Title is 0,
/// "heading N" is N, otherwise the style's outline level, inherited through `basedOn`.
struct WordStyles {
    private var styles: [String: Style] = [:]

    private struct Style {
        var name = ""
        var basedOn: String?
        var outlineLevel: Int?
    }

    /// The styles of `part`; none when there is no styles part.
    init(part: String?, in archive: inout ZipArchive, limits: ExtractionLimits) throws(ExtractionFailure) {
        guard let part, let bytes = try archive.read(part) else { return }
        let reader = Reader()
        try XMLStream.parse(bytes, part: part, limits: limits, into: reader)
        styles = reader.styles
    }

    /// The heading level of the style with this id, or nil for body text.
    func level(of id: String?) -> Int? {
        var id = id
        for _ in 0..<16 {  // a basedOn cycle ends here
            guard let current = id, let style = styles[current] else { return nil }
            let name = style.name.lowercased()
            if name == "title" { return 0 }
            if name.hasPrefix("heading "), let level = Int(name.dropFirst(8)), (1...9).contains(level) {
                return level
            }
            if let level = style.outlineLevel { return level < 9 ? level + 1 : nil }
            id = style.basedOn
        }
        return nil
    }

    private final class Reader: XMLHandler {
        var styles: [String: Style] = [:]
        var current: (id: String, style: Style)?

        func start(_ name: String, namespace: String, attributes: [String: String]) {
            guard DOCXExtractor.isWord(namespace) else { return }
            switch name {
            case "style" where attributes["type"] == "paragraph":
                current = attributes["styleId"].map { ($0, Style()) }
            case "name": current?.style.name = attributes["val"] ?? ""
            case "basedOn": current?.style.basedOn = attributes["val"]
            case "outlineLvl": current?.style.outlineLevel = attributes["val"].flatMap { Int($0) }
            default: break
            }
        }

        func end(_ name: String, namespace: String) {
            guard name == "style", DOCXExtractor.isWord(namespace), let current else { return }
            if styles[current.id] == nil { styles[current.id] = current.style }
            self.current = nil
        }

        func text(_ text: String) {}
    }
}
