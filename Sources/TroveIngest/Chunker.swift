/// One passage of a document, the unit that is embedded and returned by search.
public struct Chunk: Sendable, Equatable {
    /// 0-based position in the document.
    public var ordinal: Int
    /// First line, 1-based.
    public var startLine: Int
    /// Last line, 1-based, inclusive.
    public var endLine: Int
    /// Headings above the chunk, outermost first, e.g. `["Deploy", "Keys"]`.
    public var headingPath: [String]
    public var text: String

    public init(ordinal: Int, startLine: Int, endLine: Int, headingPath: [String], text: String) {
        self.ordinal = ordinal
        self.startLine = startLine
        self.endLine = endLine
        self.headingPath = headingPath
        self.text = text
    }
}

/// Parameters of the chunker; part of the index fingerprint.
public struct ChunkerConfiguration: Sendable, Equatable {
    /// Bumped whenever chunk boundaries for the same input change.
    public static let version = 1
    /// Estimated tokens a chunk may hold.
    public var maxTokens: Int
    /// Fraction of `maxTokens` repeated from the end of one chunk at the start of the next when a section is split.
    public var overlap: Double

    public init(maxTokens: Int = 400, overlap: Double = 0.12) {
        self.maxTokens = maxTokens
        self.overlap = overlap
    }
}

/// Splits documents into chunks: Markdown by headings, never inside code fences; text and code by blank-line blocks.
public struct Chunker: Sendable {
    public var configuration: ChunkerConfiguration

    public init(configuration: ChunkerConfiguration = ChunkerConfiguration()) { self.configuration = configuration }

    public func chunks(of text: String, kind: DocumentKind) -> [Chunk] { fatalError("unimplemented") }
}

/// Conservative token estimate (over-counts rather than under-counts for WordPiece/BPE models).
public enum TokenEstimate {
    public static func count<S: StringProtocol>(_ text: S) -> Int { fatalError("unimplemented") }
}

extension ChunkerConfiguration {
    /// A stable description of the parameters, e.g. `maxTokens=400,overlap=0.12`: part of the fingerprint.
    public var fingerprint: String { fatalError("unimplemented") }
}
