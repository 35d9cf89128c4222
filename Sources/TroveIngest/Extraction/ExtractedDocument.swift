/// A document read from a non-text format: its text as lines (the rendition that `path:start-end` and `trove get`
/// refer to) and the structure the chunker honours, handed over directly so that no line is re-parsed as markup
/// (a PDF line starting with `#` never becomes a heading).
///
/// Line indexes are 0-based positions in `lines`. Every list is sorted by line.
package struct ExtractedDocument: Sendable, Equatable, Codable {
    /// The rendition, one entry per line, without line breaks.
    package var lines: [String]
    /// Where sections start, each with its heading path, outermost first. Lines before the first are in a section
    /// with an empty path. The heading's own text, when it is in the document, is a line of the section it starts.
    package var headings: [Heading]
    /// Lines that start a hard boundary (a page, slide, message or cell): the chunker never packs across one.
    package var boundaries: [Int]
    /// Lines where a locator region starts; each runs to the next locator (or the end).
    package var locators: [Locator]
    /// How the text was read, e.g. `pdftotext 22.12.0`, `html/libxml2 2.9.14`, `docx`: stored with the document.
    package var extractor: String
    /// The source text encoding when it was not UTF-8 (a declared or detected charset), for `-v` output.
    package var encoding: String?
    /// What a cap left out when the file held more than the rendition keeps (a mailbox past the text cap): nil when
    /// the whole file was read.
    package var truncation: Truncation?

    /// A document from its parts.
    package init(
        lines: [String], headings: [Heading] = [], boundaries: [Int] = [], locators: [Locator] = [],
        extractor: String, encoding: String? = nil
    ) {
        self.lines = lines
        self.headings = headings
        self.boundaries = boundaries
        self.locators = locators
        self.extractor = extractor
        self.encoding = encoding
    }

    /// A section start: the line and the heading path from it on.
    package struct Heading: Sendable, Equatable, Codable {
        /// 0-based line where the section starts.
        package var line: Int
        /// Headings above and including this one, outermost first, e.g. `["Install", "From source"]`.
        package var path: [String]
        /// The id a link to this section uses (`page.html#install`), when the page gives its heading one.
        package var anchor: String?

        /// A section start.
        package init(line: Int, path: [String], anchor: String? = nil) {
            self.line = line
            self.path = path
            self.anchor = anchor
        }
    }

    /// The parts a cap left out: the first `kept` of the file's `total` (messages), the rest counted but not read.
    package struct Truncation: Sendable, Equatable, Codable {
        /// What was counted.
        package var kind: LocatorKind
        /// Parts read, from the first on.
        package var kept: Int
        /// Parts in the file.
        package var total: Int
        /// The cap that stopped the reading, e.g. `the 16 MiB text limit`.
        package var limit: String

        /// A truncation.
        package init(kind: LocatorKind, kept: Int, total: Int, limit: String) {
            self.kind = kind
            self.kept = kept
            self.total = total
            self.limit = limit
        }
    }

    /// The start of a locator region: from `line` on, the text is on page (slide, message, cell) `number`.
    package struct Locator: Sendable, Equatable, Codable {
        /// 0-based line where the region starts.
        package var line: Int
        package var kind: LocatorKind
        /// 1-based page, slide, message or cell number.
        package var number: Int
        /// True for pages taken from a word processor's last layout (DOCX, ODT), which may have moved since.
        package var approximate: Bool

        /// A locator region's start.
        package init(line: Int, kind: LocatorKind, number: Int, approximate: Bool = false) {
            self.line = line
            self.kind = kind
            self.number = number
            self.approximate = approximate
        }
    }
}

/// What a locator counts.
public enum LocatorKind: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case page, slide, message, cell

    /// The URI fragment key: `#page=4`, `#slide=3`, `#msg=42`, `#cell=7`.
    public var fragmentKey: String {
        switch self {
        case .page: "page"
        case .slide: "slide"
        case .message: "msg"
        case .cell: "cell"
        }
    }
}
