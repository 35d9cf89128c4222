import TroveIngest

/// Word documents (`.docx`): the main part named by the package's relationships, paragraphs as blocks, headings from
/// the Title and Heading 1…9 styles (by style name, which Word keeps in English whatever the UI language, or by
/// outline level), each table row as a line, footnotes and endnotes after the paragraph citing them, and approximate
/// pages where Word's last layout left `w:lastRenderedPageBreak`.
package enum DOCXExtractor: DocumentExtractor {
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure)
        -> ExtractedDocument
    {
        var archive = try ZipArchive(bytes, limits: limits)
        let (main, document) = try Relationships.mainPart(
            of: &archive, fallback: "word/document.xml", what: "a Word document", limits: limits)
        let parts = try Relationships(of: main, in: &archive, limits: limits)
        let styles = try WordStyles(part: parts.first("styles"), in: &archive, limits: limits)
        let footnotes = try WordNotes(part: parts.first("footnotes"), in: &archive, limits: limits)
        let endnotes = try WordNotes(part: parts.first("endnotes"), in: &archive, limits: limits)
        let body = try Body(
            flow: TextFlow(extractor: "docx", limits: limits),
            styles: styles, footnotes: footnotes.notes, endnotes: endnotes.notes)
        try XMLStream.parse(document, part: main, limits: limits, into: body)
        return body.flow.finish()
    }

    /// WordprocessingML's namespace, Transitional or Strict.
    static func isWord(_ namespace: String) -> Bool {
        namespace.hasSuffix("/wordprocessingml/2006/main") || namespace.hasSuffix("/wordprocessingml/main")
    }

    /// Reads `word/document.xml` into the flow.
    private final class Body: XMLHandler {
        var flow: TextFlow
        let styles: WordStyles
        let footnotes: [String: String]
        let endnotes: [String: String]
        /// Depth inside a skipped element: an alternative's fallback (the same text again), a tracked move's
        /// source, a tracked formatting change's old properties.
        var skipped = 0
        var inText = false
        var inProperties = 0
        var footnoteCount = 0
        var endnoteCount = 0

        init(flow: TextFlow, styles: WordStyles, footnotes: [String: String], endnotes: [String: String]) {
            self.flow = flow
            self.styles = styles
            self.footnotes = footnotes
            self.endnotes = endnotes
        }

        func start(_ name: String, namespace: String, attributes: [String: String]) {
            if skipped > 0 || (name == "Fallback" && namespace.hasSuffix("/markup-compatibility/2006")) {
                skipped += 1
                return
            }
            guard DOCXExtractor.isWord(namespace) else { return }
            switch name {
            case "moveFrom", "pPrChange", "rPrChange": skipped = 1
            case "p": flow.startParagraph()
            case "pPr": inProperties += 1
            case "pStyle" where inProperties > 0: flow.setLevel(styles.level(of: attributes["val"]))
            case "outlineLvl" where inProperties > 0:
                if let level = attributes["val"].flatMap({ Int($0) }), (0..<9).contains(level) {
                    flow.setLevel(level + 1)
                }
            case "t": inText = true
            case "tab" where inProperties == 0: flow.text(" ")
            case "br", "cr": flow.text("\n")
            case "noBreakHyphen": flow.text("-")
            case "lastRenderedPageBreak": flow.pageBreak()
            case "footnoteReference":
                footnoteCount += 1
                flow.note(marker: String(footnoteCount), text: attributes["id"].flatMap { footnotes[$0] } ?? "")
            case "endnoteReference":
                endnoteCount += 1
                flow.note(marker: WordNotes.roman(endnoteCount), text: attributes["id"].flatMap { endnotes[$0] } ?? "")
            case "tbl": flow.startTable()
            default: break
            }
        }

        func end(_ name: String, namespace: String) throws(ExtractionFailure) {
            if skipped > 0 {
                skipped -= 1
                return
            }
            guard DOCXExtractor.isWord(namespace) else { return }
            switch name {
            case "p": try flow.endParagraph()
            case "pPr": inProperties -= 1
            case "t": inText = false
            case "tc": flow.endCell()
            case "tr": try flow.endRow()
            case "tbl": flow.endTable()
            default: break
            }
        }

        func text(_ text: String) {
            if inText, skipped == 0 { flow.text(text) }
        }
    }
}
