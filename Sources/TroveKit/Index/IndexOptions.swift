import TroveIngest

/// What to index and how.
public struct IndexOptions: Sendable {
    /// Chunks per embedding request when `--batch` is not given; see BENCHMARKS.md#indexing-throughput.
    public static let defaultBatchSize = 64
    /// Embedding requests in flight when `--jobs` is not given: one being computed, one on its way.
    public static let defaultJobs = 2

    /// Folders to index; empty refreshes every root the index already has.
    public var roots: [String]
    public var crawl: CrawlOptions
    /// Chunks per embedding request, and about the chunks per transaction.
    public var batchSize: Int
    /// Embedding requests in flight at once; commits still happen in crawl order.
    public var jobs: Int
    /// Retries of transient failures (connection, timeout, 503, 5xx) with exponential backoff and jitter.
    public var retry: RetryPolicy
    /// Overrides the chunk budget derived from the model's context length.
    public var maxTokens: Int?
    /// Rebuild every stored vector with the current model (after `ollama pull` changed it, or for another
    /// model), keeping the old ones searchable until the new set is complete.
    public var reembed: Bool
    /// Read every file of an extracted format (PDF, HTML, …) again, even when its content did not change or a copy
    /// of it is already indexed (after an extractor improved).
    public var reextract = false
    /// Try again the files whose extraction failed before (remembered by content hash, and skipped otherwise).
    public var retryFailed = false
    /// `--ocr`: scanned PDFs of at most this many pages are read by OCR (tesseract, seconds a page), and scans
    /// remembered as having no text layer are tried again; 0: never.
    public var ocrPages = 0
    /// Raised to stop after the current transaction (Ctrl-C).
    public var stop: StopSignal?
    /// At most this many documents per transaction, even when they need no embedding (stat-only updates).
    public var maxDocumentsPerTransaction: Int
    /// Limits the pass to these absolute paths (files, or folders with everything below them) inside `roots`;
    /// documents elsewhere are neither read nor removed. nil: all of every root. `trove watch` passes what changed.
    public var within: [String]?

    public init(
        roots: [String], crawl: CrawlOptions = CrawlOptions(), batchSize: Int = IndexOptions.defaultBatchSize,
        jobs: Int = IndexOptions.defaultJobs, retry: RetryPolicy = RetryPolicy(), maxTokens: Int? = nil,
        reembed: Bool = false, stop: StopSignal? = nil, maxDocumentsPerTransaction: Int = 256,
        within: [String]? = nil
    ) {
        self.within = within
        self.roots = roots
        self.crawl = crawl
        self.batchSize = batchSize
        self.jobs = jobs
        self.retry = retry
        self.maxTokens = maxTokens
        self.reembed = reembed
        self.stop = stop
        self.maxDocumentsPerTransaction = maxDocumentsPerTransaction
    }
}
