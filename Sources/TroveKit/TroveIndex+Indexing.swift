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
                let summary = try await Indexer(
                    store: writer, embedder: embedder, extractionWorker: configuration.extractionWorker ?? ExtractionWorkerCommand.standard
                ).run(options) { event in
                    continuation.yield(.event(event))
                }
                // SQLite folds its WAL into the file; PostgreSQL builds its HNSW index once large enough. A
                // build over many vectors takes minutes: said first. A failure leaves the index whole (the run's
                // documents are committed) and is said, not hidden: searches are exact (slower) until a build works.
                if let ann = try? writer.annIndexState(), let notice = Self.buildNotice(ann) {
                    continuation.yield(.event(.notice(notice)))
                }
                do {
                    try writer.afterIndexing(chunksEmbedded: summary.chunksEmbedded)
                } catch {
                    continuation.yield(.event(.warning(String(describing: error))))
                }
                continuation.yield(.finished(summary))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Vectors from which the start of an ANN index build is announced: past this the build takes minutes.
    public static let announcedBuildSize = 200_000

    /// The line said before an ANN index build over many vectors, nil when no such build is due.
    static func buildNotice(_ ann: ANNIndexState) -> String? {
        guard ann.wanted, !ann.built, ann.vectors > announcedBuildSize else { return nil }
        let minutes = max(1, Int((Double(ann.estimatedBuildSeconds) / 60).rounded()))
        return "building the HNSW index over \(ann.vectors) vectors: roughly \(minutes) min at the measured rate "
            + "(BENCHMARKS.md); the documents are saved and searchable (exactly) meanwhile"
    }
}
