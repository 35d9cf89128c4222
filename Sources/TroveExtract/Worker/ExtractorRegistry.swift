import TroveIngest

/// Which extractor reads each format in the worker: one case per format, added by each format's owner as its
/// extractor lands.
package enum ExtractorRegistry {
    /// How a format is read.
    package enum Reader {
        /// From the file's bytes, in the worker's own process.
        case bytes(any DocumentExtractor.Type)
        /// From the open descriptor, by a tool the worker runs (PDF: `pdftotext` reads it as its standard input).
        case descriptor(@Sendable (_ descriptor: Int32, _ limits: ExtractionLimits) throws(ExtractionFailure) -> ExtractedDocument)
    }

    /// The reader of `format`, or nil when this build has none yet.
    package static func reader(for format: DocumentFormat) -> Reader? {
        switch format {
        case .pdf: .descriptor(PDFExtractor.extract(descriptor:limits:))
        case .html: .bytes(HTMLExtractor.self)
        case .docx: .bytes(DOCXExtractor.self)
        case .odt: .bytes(ODTExtractor.self)
        case .pptx: .bytes(PPTXExtractor.self)
        case .epub: .bytes(EPUBExtractor.self)
        case .notebook: .bytes(NotebookExtractor.self)
        // Mail reads its attachments through this registry.
        case .eml:
            .descriptor { descriptor, limits throws(ExtractionFailure) in
                let bytes = try ExtractionWorker.readAll(descriptor, limits: limits)
                return try MailExtractor.extract(bytes, limits: limits, attachments: extract(_:as:limits:))
            }
        case .mbox:
            .descriptor { descriptor, limits throws(ExtractionFailure) in
                try MailboxExtractor.extract(descriptor: descriptor, limits: limits, attachments: extract(_:as:limits:))
            }
        }
    }

    /// The document in `bytes` read as `format` (a mail's attachment: `AttachmentExtractor`). A reader of
    /// descriptors gets the bytes through a socket (`FedDescriptor`), as the worker may write no file.
    package static func extract(_ bytes: [UInt8], as format: DocumentFormat, limits: ExtractionLimits)
        throws(ExtractionFailure) -> ExtractedDocument
    {
        switch reader(for: format) {
        case .bytes(let extractor): return try extractor.extract(bytes, limits: limits)
        case .descriptor(let extract):
            return try FedDescriptor.reading(bytes) { descriptor throws(ExtractionFailure) in
                try extract(descriptor, limits)
            }
        case nil: throw ExtractionFailure(.toolMissing, "this build of trove has no \(format.rawValue) extractor")
        }
    }
}
