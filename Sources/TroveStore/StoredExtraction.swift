/// Where a chunk of an extracted document lies in the original, as stored: pages (slides, messages, cells)
/// `first...last`.
package struct StoredLocator: Sendable, Equatable, Hashable {
    /// `page`, `slide`, `message` or `cell`: TroveIngest's `LocatorKind`, parsed by TroveKit where it reads it.
    package var kind: String
    /// 1-based number where the chunk starts.
    package var first: Int
    /// 1-based number where it ends.
    package var last: Int
    /// Pages from a word processor's last layout.
    package var approximate: Bool

    /// A locator from its parts.
    package init(kind: String, first: Int, last: Int, approximate: Bool) {
        self.kind = kind
        self.first = first
        self.last = last
        self.approximate = approximate
    }
}

/// How a document that is not text was read, stored with it.
package struct StoredExtraction: Sendable, Equatable {
    /// The format's name (`pdf`, `html`, …: TroveIngest's `DocumentFormat`).
    package var format: String
    /// How the text was read, e.g. `pdftotext 22.12.0`.
    package var extractor: String
    /// The rendition's structure (headings, boundaries, locators) as JSON, so that it can be chunked again from the
    /// stored text without reading the file.
    package var structure: String

    /// An extraction record from its parts.
    package init(format: String, extractor: String, structure: String) {
        self.format = format
        self.extractor = extractor
        self.structure = structure
    }
}

/// An extracted document already in the index, whose chunks and vectors a copy or a move of it reuses.
package struct ReusableExtraction: Sendable, Equatable {
    /// How it was read.
    package var extraction: StoredExtraction
    /// Its chunks with their vectors, by ordinal.
    package var chunks: [NewChunk]

    /// A reusable document from its parts.
    package init(extraction: StoredExtraction, chunks: [NewChunk]) {
        self.extraction = extraction
        self.chunks = chunks
    }
}

/// A remembered extraction failure: an unchanged file that failed is not tried again until `--retry-failed`.
package struct StoredExtractionFailure: Sendable, Equatable {
    /// The outcome's name (TroveIngest's `ExtractionFailure.Kind`), e.g. `encrypted`.
    package var kind: String
    /// Its specifics, as first reported.
    package var detail: String

    /// A failure from its parts.
    package init(kind: String, detail: String) {
        self.kind = kind
        self.detail = detail
    }
}
