/// One passage of a document, the unit that is embedded and returned by search.
package struct Chunk: Sendable, Equatable {
    /// 0-based position in the document.
    package var ordinal: Int
    /// First line, 1-based.
    package var startLine: Int
    /// Last line, 1-based, inclusive.
    package var endLine: Int
    /// Headings above the chunk, outermost first, e.g. `["Deploy", "Keys"]`.
    package var headingPath: [String]
    package var text: String
    /// Pages (slides, messages, cells) the chunk lies on, for a chunk of an extracted document; nil for text files.
    package var locator: PassageLocator?

    package init(
        ordinal: Int, startLine: Int, endLine: Int, headingPath: [String], text: String, locator: PassageLocator? = nil
    ) {
        self.locator = locator
        self.ordinal = ordinal
        self.startLine = startLine
        self.endLine = endLine
        self.headingPath = headingPath
        self.text = text
    }
}
