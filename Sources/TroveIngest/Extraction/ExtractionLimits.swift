/// Caps on one extraction, so that a hostile or huge file ends in `ExtractionFailure(.damaged, …)` rather than
/// exhausting memory or time.
package struct ExtractionLimits: Sendable, Equatable, Codable {
    /// Largest input file read, and largest message or attachment of a mailbox (which is streamed, not read whole).
    package var maxInputBytes = 256 << 20
    /// Largest rendition returned (UTF-8 bytes of all lines).
    package var maxOutputBytes = 16 << 20
    /// Most pages (slides, cells) read from one file.
    package var maxParts = 5_000
    /// Most messages read from one mailbox: the rest are counted and reported, not read. Higher than `maxParts`, as a
    /// mailbox of 10,000 short messages is ordinary; the text cap (`maxOutputBytes`) bounds it too.
    package var maxMessages = 100_000
    /// Most entries in a zip container.
    package var maxZipEntries = 10_000
    /// Largest inflated size of one zip entry, declared or actual.
    package var maxZipEntryBytes = 64 << 20
    /// Largest inflated size of all entries read from one container.
    package var maxZipTotalBytes = 256 << 20
    /// Largest inflated / compressed ratio of one zip entry.
    package var maxZipRatio = 100
    /// Deepest element nesting in XML or HTML, and deepest MIME multipart nesting.
    package var maxNesting = 256
    /// Most pages of one file read by OCR when it has no text layer; 0 (the default) reads none: OCR is opt-in
    /// (`--ocr`), as it costs seconds a page.
    package var ocrPages = 0

    /// The defaults.
    package init() {}

    /// The largest file of `format` read, or nil for a format read as a stream (mbox: block by block, one message
    /// held at a time, its text capped by `maxOutputBytes` and `maxMessages`).
    package func maxInputBytes(for format: DocumentFormat) -> Int? {
        format == .mbox ? nil : maxInputBytes
    }
}
