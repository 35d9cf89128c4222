import TroveIngest

/// The text of one slide (or notes page): its shapes in document order, each with its placeholder type and its lines
/// (one per paragraph, one per table row as `cell | cell`).
final class SlideText: XMLHandler {
    /// One shape or graphic frame.
    struct Shape {
        /// `title`, `ctrTitle`, `body`, `sldNum`…; nil for a shape that is no placeholder.
        var placeholder: String?
        var lines: [String] = []

        var isTitle: Bool { placeholder == "title" || placeholder == "ctrTitle" }
        /// Slide number, date, footer, header, the notes page's slide image: not the slide's content.
        var isFurniture: Bool { ["sldNum", "dt", "ftr", "hdr", "sldImg"].contains(placeholder ?? "") }
    }

    private(set) var shapes: [Shape] = []
    private var shape: Shape?
    private var paragraph: String?
    private var row: [String]?
    private var cell: [String]?
    private var inText = false
    private var skipped = 0

    /// The shapes of a slide part.
    static func read(_ bytes: [UInt8], part: String, limits: ExtractionLimits) throws(ExtractionFailure) -> [Shape] {
        let reader = SlideText()
        try XMLStream.parse(bytes, part: part, limits: limits, into: reader)
        return reader.shapes
    }

    func start(_ name: String, namespace: String, attributes: [String: String]) {
        if skipped > 0 || (name == "Fallback" && namespace.hasSuffix("/markup-compatibility/2006")) {
            skipped += 1
            return
        }
        if PPTXExtractor.isPresentation(namespace) {
            switch name {
            case "sp", "graphicFrame": if shape == nil { shape = Shape() }
            case "ph": shape?.placeholder = attributes["type"] ?? "body"
            default: break
            }
        } else if Self.isDrawing(namespace) {
            switch name {
            case "p": paragraph = ""
            case "t": inText = true
            case "br": paragraph? += "\n"
            case "tr": row = []
            case "tc": cell = []
            default: break
            }
        }
    }

    func end(_ name: String, namespace: String) {
        if skipped > 0 {
            skipped -= 1
            return
        }
        if PPTXExtractor.isPresentation(namespace) {
            if name == "sp" || name == "graphicFrame", let shape {
                shapes.append(shape)
                self.shape = nil
            }
        } else if Self.isDrawing(namespace) {
            switch name {
            case "t": inText = false
            case "p":
                guard let text = paragraph.map(TextFlow.squeezedLines), !text.isEmpty else { break }
                if cell != nil { cell?.append(text) } else { shape?.lines.append(text) }
                paragraph = nil
            case "tc":
                row?.append(cell?.joined(separator: " ") ?? "")
                cell = nil
            case "tr":
                let line = (row ?? []).filter { !$0.isEmpty }.joined(separator: " | ")
                if !line.isEmpty { shape?.lines.append(line) }
                row = nil
            default: break
            }
        }
    }

    func text(_ text: String) {
        if inText, skipped == 0 { paragraph? += text }
    }

    /// DrawingML's namespace, Transitional or Strict.
    static func isDrawing(_ namespace: String) -> Bool {
        namespace.hasSuffix("/drawingml/2006/main") || namespace.hasSuffix("/drawingml/main")
    }
}
