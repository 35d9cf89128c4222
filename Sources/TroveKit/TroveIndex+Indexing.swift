import TroveStore

/// What an index run reports: its events as they happen, then its summary.
public enum IndexProgress: Sendable {
    case event(IndexEvent)
    /// The run ended (completely, or early when stopped); what is counted is saved.
    case finished(IndexSummary)
}

extension IndexOptions {
    /// Index only files matching these globs (gitignore syntax).
    public var includes: [String] {
        get { crawl.includes }
        set { crawl.includes = newValue }
    }
    /// Skip files and folders matching these globs.
    public var excludes: [String] {
        get { crawl.excludes }
        set { crawl.excludes = newValue }
    }
    /// Files larger than this many bytes are skipped with a warning.
    public var maxFileSize: Int64 {
        get { crawl.maxFileSize }
        set { crawl.maxFileSize = newValue }
    }
}

extension TroveIndex {
    /// Runs one indexing pass on a writer connection of its own, reporting progress as it goes; searches on this
    /// index keep answering meanwhile and see each committed batch. Ending the iteration early cancels the run
    /// (use `options.stop` to let it finish the batch in hand instead). A later `trove watch` calls this per change.
    public func index(_ options: IndexOptions) throws -> AsyncThrowingStream<IndexProgress, any Error> {
        let embedder = try currentEmbedder()
        let configuration = configuration
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: IndexProgress.self)
        // Detached: the run's synchronous work (crawl, chunk, SQLite writes) must not occupy this actor, which keeps
        // answering searches meanwhile.
        let task = Task.detached {
            do {
                let writer = try TroveIndex.openStore(configuration, createIfMissing: false)
                let summary = try await Indexer(store: writer, embedder: embedder).run(options) { event in
                    continuation.yield(.event(event))
                }
                // SQLite folds a large WAL into the file; PostgreSQL builds its HNSW index once large enough.
                try? writer.afterIndexing(chunksEmbedded: summary.chunksEmbedded)
                continuation.yield(.finished(summary))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
