/// A file format that is not text: read by an extractor (in the extraction worker) into an `ExtractedDocument`.
package enum DocumentFormat: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case pdf, html, docx, odt, pptx, epub, notebook, eml, mbox

    /// The format for a file name's extension (case-insensitive), or nil when it is not an extracted format.
    package init?(fileExtension: some StringProtocol) {
        switch fileExtension.lowercased() {
        case "pdf": self = .pdf
        case "html", "htm", "xhtml": self = .html
        case "docx": self = .docx
        case "odt": self = .odt
        case "pptx": self = .pptx
        case "epub": self = .epub
        case "ipynb": self = .notebook
        case "eml": self = .eml
        case "mbox", "mbx": self = .mbox
        default: return nil
        }
    }

    /// What a hard boundary in this format separates, which is also what its locators count.
    package var locatorKind: LocatorKind? {
        switch self {
        case .pdf: .page
        case .pptx: .slide
        case .eml, .mbox: .message
        case .notebook: .cell
        case .docx, .odt: .page  // approximate: from the author's last layout
        case .epub: .page  // the print pages, where the book lists them
        case .html: nil
        }
    }
}
