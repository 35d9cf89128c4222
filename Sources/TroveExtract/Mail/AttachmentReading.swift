import TroveIngest

/// Reads an attachment's bytes as a format (the worker's `ExtractorRegistry.extract`), handed to the mail readers so
/// that they do not reach up to the registry that holds them.
package typealias AttachmentExtractor = @Sendable
    (_ bytes: [UInt8], _ format: DocumentFormat, _ limits: ExtractionLimits) throws(ExtractionFailure)
    -> ExtractedDocument

/// How a mail attachment is read, from its file name (as a file of that name would be indexed) or else its media
/// type.
enum AttachmentReading: Equatable {
    /// Text in its declared charset (text/plain, Markdown, source code, …).
    case text
    /// A format an extractor reads (PDF, HTML, DOCX, ODT, PPTX, EPUB, notebooks).
    case format(DocumentFormat)
    /// A message (message/rfc822, an `.eml`), read in place one MIME level deeper, so nesting stays bounded.
    case message
    /// Named only: images, archives, data, and mailboxes (whose every message would be read again).
    case none

    /// The reading of an attachment of media type `type` (lowercase) named `name`.
    init(type: String, name: String?) {
        if type == "message/rfc822" || type == "message/global" {
            self = .message
        } else if let name, let kind = DocumentKind(path: name) {
            switch kind {
            case .extracted(.eml): self = .message
            case .extracted(.mbox): self = .none
            case .extracted(let format): self = .format(format)
            case .markdown, .plainText, .restructuredText, .org, .code: self = .text
            }
        } else {
            self = Self.byType[type] ?? (type.hasPrefix("text/") ? .text : .none)
        }
    }

    /// The media types of the extracted formats.
    private static let byType: [String: AttachmentReading] = [
        "application/pdf": .format(.pdf), "text/html": .format(.html), "application/xhtml+xml": .format(.html),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": .format(.docx),
        "application/vnd.openxmlformats-officedocument.presentationml.presentation": .format(.pptx),
        "application/vnd.oasis.opendocument.text": .format(.odt), "application/epub+zip": .format(.epub),
        "application/x-ipynb+json": .format(.notebook), "application/mbox": .none,
    ]
}
