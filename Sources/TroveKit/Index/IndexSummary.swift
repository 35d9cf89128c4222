import TroveIngest

/// What one `trove index` run did.
public struct IndexSummary: Sendable, Equatable, Codable {
    public var newDocuments = 0
    public var changedDocuments = 0
    public var unchangedDocuments = 0
    public var removedDocuments = 0
    /// Documents chunked again from the index's own text after a chunker change, with no file read.
    public var rechunkedDocuments = 0
    public var skippedFiles = 0
    /// Why files were skipped: a reason (`binary`, `too large`, `unreadable`, `not embeddable`) and how many.
    public var skippedReasons: [String: Int] = [:]
    /// Chunks sent to the embedder in this run.
    public var chunksEmbedded = 0
    /// Chunks whose vector was taken from the index (same text seen before: an edit elsewhere, a move, a copy).
    public var chunksReused = 0
    /// Embedding requests that failed transiently and were sent again.
    public var retries = 0
    /// Vectors rebuilt by `--reembed`.
    public var chunksReembedded = 0
    /// True when the run was stopped early (Ctrl-C): what is counted was saved, the rest was not looked at.
    public var interrupted = false
    /// Files of extracted formats that could not be read, by format (`pdf`) and outcome (`encrypted`,
    /// `no-text-layer`, `damaged`, `timeout`, `out-of-memory`, `crashed`, `tool-missing`): this run's failures and
    /// remembered ones alike (each is also a skipped file).
    public var extractionFailures: [String: [String: Int]] = [:]
    /// Of those, failures of unchanged files remembered from an earlier run and not tried again (`--retry-failed`).
    public var failuresRemembered = 0
    /// Indexable files found by the crawl (over all roots).
    public var filesTotal = 0
    public var seconds = 0.0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case newDocuments = "new"
        case changedDocuments = "changed"
        case unchangedDocuments = "unchanged"
        case removedDocuments = "removed"
        case rechunkedDocuments = "rechunked"
        case skippedFiles = "skipped"
        case skippedReasons = "skipped_reasons"
        case chunksEmbedded = "chunks_embedded"
        case chunksReused = "chunks_reused"
        case chunksReembedded = "chunks_reembedded"
        case retries
        case interrupted
        case extractionFailures = "extraction_failures"
        case failuresRemembered = "failures_remembered"
        case filesTotal = "files"
        case seconds
    }

    /// Documents written or confirmed by this run.
    public var documentsDone: Int { newDocuments + changedDocuments + unchangedDocuments }

    /// The skip reasons other than extraction failures (`binary`, `too large`, …), which the text summary lists
    /// apart from the failures it groups by format, so that no file is counted twice.
    public var skippedOtherwise: [String: Int] {
        var reasons = skippedReasons
        for kinds in extractionFailures.values {
            for (kind, count) in kinds {
                let counted = ExtractionFailure.Kind(rawValue: kind)?.counted ?? kind
                reasons[counted, default: 0] -= count
            }
        }
        return reasons.filter { $0.value > 0 }
    }

    /// The extraction failures by format, each outcome in the summary's words (`no text layer`, not
    /// `no-text-layer`).
    public var extractionFailuresWorded: [String: [String: Int]] {
        extractionFailures.mapValues { kinds in
            var words: [String: Int] = [:]
            for (kind, count) in kinds {
                words[ExtractionFailure.Kind(rawValue: kind)?.counted ?? kind, default: 0] += count
            }
            return words
        }
    }

    /// Counts one skipped file under `reason`.
    mutating func skip(_ reason: String) {
        skippedFiles += 1
        skippedReasons[reason, default: 0] += 1
    }
}

/// How a document changed in a run, for `--verbose`.
public enum DocumentChange: String, Sendable, Equatable {
    case new, changed, touched, removed
}

/// Something an index run reports while it works.
public enum IndexEvent: Sendable {
    /// The crawl of a root found this many indexable files.
    case crawled(root: String, files: Int)
    /// A file left out, with the reason to show.
    case skipped(String)
    /// Something the user should know that did not stop the run (e.g. replaced invalid UTF-8).
    case warning(String)
    /// A text file that is not UTF-8 was read in this encoding (a UTF-16 BOM, or a detected legacy encoding such as
    /// `ISO-8859-1` or `SHIFT_JIS`). For `--verbose`.
    case decoded(path: String, encoding: String)
    /// A long step is starting, said before it (e.g. building PostgreSQL's HNSW index over many vectors).
    case notice(String)
    /// Files looked at so far out of the total, and chunks embedded so far.
    case progress(filesDone: Int, filesTotal: Int, chunksEmbedded: Int)
    /// A document was written (`new`, `changed`), had only its stat refreshed (`touched`), or was removed;
    /// with its chunks and how many of them reused a stored vector. For `--verbose`.
    case document(path: String, change: DocumentChange, chunks: Int, reused: Int)
}
