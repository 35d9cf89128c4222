/// Why a file could not be extracted: one named outcome, reported as one warning line naming the file and counted in
/// the summary; it never fails the run.
package struct ExtractionFailure: Error, Sendable, Equatable, Codable {
    /// The named outcomes.
    package enum Kind: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
        /// A password is needed.
        case encrypted
        /// A PDF with no text layer (scanned?); `--ocr` may read it.
        case noTextLayer = "no-text-layer"
        /// The file is not what its name says, is truncated, malformed, or exceeds a limit (a zip bomb).
        case damaged
        /// The extractor ran past its wall-clock limit.
        case timeout
        /// The extractor ran past its memory limit.
        case outOfMemory = "out-of-memory"
        /// The extractor died (a signal or a trap).
        case crashed
        /// An external tool the format needs (e.g. `pdftotext`) is not installed.
        case toolMissing = "tool-missing"
    }

    package var kind: Kind
    /// One short lowercase phrase with the specifics, e.g. `zip entry word/document.xml inflates past 64 MiB`,
    /// `SIGSEGV`, `pdftotext not installed (apt-get install poppler-utils poppler-data)`.
    package var detail: String

    /// A failure of one kind.
    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }
}
