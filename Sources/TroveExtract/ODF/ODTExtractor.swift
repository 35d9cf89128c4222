import TroveIngest

/// OpenDocument text (`.odt`, LibreOffice's format): `content.xml`'s paragraphs as blocks, `text:h` headings at
/// their outline level, each table row as a line, notes after the paragraph citing them, and approximate pages where
/// the last layout left `text:soft-page-break`. Tables of contents, comments and tracked deletions are left out.
package enum ODTExtractor: DocumentExtractor {
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure)
        -> ExtractedDocument
    {
        var archive = try ZipArchive(bytes, limits: limits)
        // A password-protected document keeps its zip readable but its parts encrypted, as the manifest says.
        if let manifest = try archive.read("META-INF/manifest.xml"), manifest.contains(utf8: "encryption-data") {
            throw ExtractionFailure(.encrypted, "the document is password-protected")
        }
        guard let content = try archive.read("content.xml") else {
            throw ExtractionFailure(.damaged, "no content.xml in the zip (not an OpenDocument file)")
        }
        let body = Body(
            flow: try TextFlow(extractor: "odt", limits: limits))
        try XMLStream.parse(content, part: "content.xml", limits: limits, into: body)
        return body.flow.finish()
    }

    private static let text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    private static let table = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
    private static let office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    private static let svg = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"

    /// Elements whose text is not the document's flow.
    private static let skippedText: Set<String> = [
        "tracked-changes", "table-of-content", "alphabetical-index", "illustration-index", "table-index",
        "object-index", "user-index", "bibliography", "sequence-decls", "variable-decls", "user-field-decls",
    ]

    /// Reads `content.xml` into the flow.
    private final class Body: XMLHandler {
        var flow: TextFlow
        var skipped = 0
        /// The note being read (`text:note`): its citation mark and its body.
        var note: (citation: String, body: String, inCitation: Bool)?

        init(flow: TextFlow) { self.flow = flow }

        func start(_ name: String, namespace: String, attributes: [String: String]) {
            if skipped > 0 || isSkipped(name, namespace) {
                skipped += 1
                return
            }
            if note != nil {
                if namespace == ODTExtractor.text {
                    if name == "note-citation" { note?.inCitation = true }
                    if name == "p" || name == "h" || name == "s" || name == "tab" || name == "line-break" {
                        note?.body += " "
                    }
                }
                return
            }
            switch (namespace, name) {
            case (ODTExtractor.text, "h"):
                flow.startParagraph(level: attributes["outline-level"].flatMap { Int($0) }.map { max(1, $0) } ?? 1)
            case (ODTExtractor.text, "p"): flow.startParagraph()
            case (ODTExtractor.text, "s"):
                flow.text(String(repeating: " ", count: min(100, max(1, attributes["c"].flatMap { Int($0) } ?? 1))))
            case (ODTExtractor.text, "tab"): flow.text(" ")
            case (ODTExtractor.text, "line-break"): flow.text("\n")
            case (ODTExtractor.text, "soft-page-break"): flow.pageBreak()
            case (ODTExtractor.text, "note"): note = ("", "", false)
            case (ODTExtractor.table, "table"): flow.startTable()
            default: break
            }
        }

        func end(_ name: String, namespace: String) throws(ExtractionFailure) {
            if skipped > 0 {
                skipped -= 1
                return
            }
            if let current = note {
                if namespace == ODTExtractor.text, name == "note-citation" { note?.inCitation = false }
                if namespace == ODTExtractor.text, name == "note" {
                    note = nil
                    flow.note(marker: TextFlow.squeezed(current.citation), text: current.body)
                }
                return
            }
            switch (namespace, name) {
            case (ODTExtractor.text, "h"), (ODTExtractor.text, "p"): try flow.endParagraph()
            case (ODTExtractor.table, "table-cell"): flow.endCell()
            case (ODTExtractor.table, "table-row"): try flow.endRow()
            case (ODTExtractor.table, "table"): flow.endTable()
            default: break
            }
        }

        func text(_ text: String) {
            guard skipped == 0 else { return }
            if note == nil {
                flow.text(text)
            } else if note?.inCitation == true {
                note?.citation += text
            } else {
                note?.body += text
            }
        }

        private func isSkipped(_ name: String, _ namespace: String) -> Bool {
            switch namespace {
            case ODTExtractor.text: ODTExtractor.skippedText.contains(name)
            case ODTExtractor.office: name == "annotation" || name == "annotation-end"
            case ODTExtractor.svg: name == "title" || name == "desc"
            case ODTExtractor.table: name == "covered-table-cell"
            default: false
            }
        }
    }
}
