import TroveIngest

/// PowerPoint decks (`.pptx`): slides in the presentation's order (`p:sldIdLst` through its relationships), each a
/// hard boundary with locator `slide N`, its title as the heading, the other shapes' text and tables below it, and
/// the speaker notes after them. Slide numbers, dates and footers are left out.
package enum PPTXExtractor: DocumentExtractor {
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure)
        -> ExtractedDocument
    {
        var archive = try ZipArchive(bytes, limits: limits)
        let (main, presentation) = try Relationships.mainPart(
            of: &archive, fallback: "ppt/presentation.xml", what: "a PowerPoint deck", limits: limits)
        let order = SlideList()
        try XMLStream.parse(presentation, part: main, limits: limits, into: order)
        let parts = try Relationships(of: main, in: &archive, limits: limits)
        var builder = DocumentBuilder(extractor: "pptx", limits: limits)
        for (position, id) in order.ids.enumerated() {
            guard let slide = parts.byID[id]?.target, let bytes = try archive.read(slide) else { continue }
            let number = position + 1
            let shapes = try SlideText.read(bytes, part: slide, limits: limits)
            let title = shapes.first(where: \.isTitle).map { TextFlow.squeezed($0.lines.joined(separator: " ")) }
            let heading = title.flatMap { $0.isEmpty ? nil : $0 } ?? "Slide \(number)"
            builder.blankLine()
            try builder.boundary(.slide, number: number)
            builder.heading([heading])
            for shape in shapes.sorted(by: { $0.isTitle && !$1.isTitle }) where !shape.isFurniture {
                try write(shape, into: &builder)
            }
            if let notes = try Relationships(of: slide, in: &archive, limits: limits).first("notesSlide"),
                let bytes = try archive.read(notes)
            {
                let body = try SlideText.read(bytes, part: notes, limits: limits).filter { $0.placeholder == "body" }
                if body.contains(where: { !$0.lines.isEmpty }) {
                    builder.blankLine()
                    builder.heading([heading, "Notes"])
                    for shape in body { try write(shape, into: &builder) }
                }
            }
        }
        return builder.finish()
    }

    /// A shape's lines as one block.
    private static func write(_ shape: SlideText.Shape, into builder: inout DocumentBuilder) throws(ExtractionFailure) {
        guard !shape.lines.isEmpty else { return }
        builder.blankLine()
        for line in shape.lines { try builder.line(line) }
    }

    /// PresentationML's namespace, Transitional or Strict.
    static func isPresentation(_ namespace: String) -> Bool {
        namespace.hasSuffix("/presentationml/2006/main") || namespace.hasSuffix("/presentationml/main")
    }

    /// The relationship ids of the slides, in the presentation's order.
    private final class SlideList: XMLHandler {
        var ids: [String] = []

        func start(_ name: String, namespace: String, attributes: [String: String]) {
            if name == "sldId", PPTXExtractor.isPresentation(namespace), let id = attributes["id"] { ids.append(id) }
        }

        func end(_ name: String, namespace: String) {}
        func text(_ text: String) {}
    }
}
