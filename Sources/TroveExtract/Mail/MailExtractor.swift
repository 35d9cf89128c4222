import TroveIngest

/// Reads one mail message (`.eml`, RFC 5322 with MIME): one section headed "Subject — From — Date", locator
/// `message 1`; its attachments under headings naming them.
package enum MailExtractor: DocumentExtractor {
    /// The message, its attachments of other formats named only (see the next).
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure)
        -> ExtractedDocument
    {
        try extract(bytes, limits: limits, attachments: nil)
    }

    /// The message, its attachments of other formats read by `attachments` (the worker's registry).
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits, attachments: AttachmentExtractor?)
        throws(ExtractionFailure) -> ExtractedDocument
    {
        guard bytes.count <= limits.maxInputBytes else {
            throw ExtractionFailure(.damaged, "larger than \(ByteSize.format(Int64(limits.maxInputBytes)))")
        }
        guard !bytes.prefix(8192).contains(0) else { throw ExtractionFailure(.damaged, "not a mail message (binary)") }
        var renderer = MailRenderer(extractor: "eml", limits: limits, attachments: attachments)
        try renderer.message(bytes[...])
        return renderer.builder.finish()
    }
}
