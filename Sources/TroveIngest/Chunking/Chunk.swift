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
