/// What one `trove index` run did.
public struct IndexSummary: Sendable, Equatable, Codable {
    public var newDocuments = 0
    public var changedDocuments = 0
    public var unchangedDocuments = 0
    public var removedDocuments = 0
    public var skippedFiles = 0
    public var chunksEmbedded = 0
    public var seconds = 0.0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case newDocuments = "new"
        case changedDocuments = "changed"
        case unchangedDocuments = "unchanged"
        case removedDocuments = "removed"
        case skippedFiles = "skipped"
        case chunksEmbedded = "chunks_embedded"
        case seconds
    }
}

/// Something an index run reports while it works.
public enum IndexEvent: Sendable {
    /// The crawl of a root found this many indexable files.
    case crawled(root: String, files: Int)
    /// A file left out, with the reason to show.
    case skipped(String)
    /// Something the user should know that did not stop the run (e.g. replaced invalid UTF-8).
    case warning(String)
    /// Files looked at so far out of the total, and chunks embedded so far.
    case progress(filesDone: Int, filesTotal: Int, chunksEmbedded: Int)
}
