/// How `trove search` prints its hits: made by the search itself, or for it by a running `trove serve` (which then
/// answers with that text instead of the hits). A one-shot client spent ~1.2 ms decoding 10 hits (Codable's first
/// use in a process: its generic metadata) and formatting them; the server has done both before and takes ~0.1 ms
/// (BENCHMARKS.md#search-relevance).
package struct OutputStyle: Codable, Sendable, Equatable {
    /// One line per hit and its best lines (`text`), paths only (`files`), one JSON object, or one per line.
    package enum Format: String, Codable, Sendable { case text, files, json, jsonl }
    /// The shape of the output.
    package var format: Format
    /// ANSI colour (the client's stdout is a terminal and `NO_COLOR` is not set).
    package var color: Bool
    /// Control characters shown escaped (the client's stdout is a terminal).
    package var escapeControls: Bool
    /// `--explain`: the ranking's line and each hit's scores and ranks.
    package var explain: Bool
    /// `-0`: paths end with NUL.
    package var nullTerminated: Bool
    /// The client's working directory: paths under it are shown relative to it.
    package var currentDirectory: String

    /// A style with every choice made.
    package init(
        format: Format, color: Bool, escapeControls: Bool, explain: Bool, nullTerminated: Bool,
        currentDirectory: String
    ) {
        self.format = format
        self.color = color
        self.escapeControls = escapeControls
        self.explain = explain
        self.nullTerminated = nullTerminated
        self.currentDirectory = currentDirectory
    }
}
