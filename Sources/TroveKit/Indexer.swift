import Foundation
import Ollama
import Synchronization
import TroveIngest
import TroveSearch
import TroveStore

/// What to index and how.
public struct IndexOptions: Sendable {
    /// Chunks per embedding request when `--batch` is not given; see BENCHMARKS.md for the measurement.
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

/// Crawl → chunk → embed → store, as a pipeline: the crawl, loading and chunking run on the calling task while up
/// to `jobs` embedding requests are in flight; batches are committed in crawl order, one transaction each, so an
/// interrupted run never leaves a document half-indexed and the next run picks up where this one stopped.
/// Chunks whose text is already stored (same heading and text, anywhere in the index) reuse its vector.
public final class Indexer {
    package let store: any IndexBackend
    public let embedder: any Embedder

    package init(store: any IndexBackend, embedder: any Embedder) {
        self.store = store
        self.embedder = embedder
    }

    /// The chunk budget for a model: half its context leaves room for the heading line and a conservative estimate.
    public static func chunkBudget(contextLength: Int?) -> Int {
        guard let contextLength, contextLength > 0 else { return 400 }
        return min(400, max(64, contextLength / 2))
    }

    /// Runs one indexing pass over `options.roots` and returns what it did.
    public func run(_ options: IndexOptions, report: (IndexEvent) -> Void) async throws -> IndexSummary {
        let started = ContinuousClock.now
        // One writer per folder: a second `trove index` of the same folder (or any, during --reembed) is refused,
        // naming the first. A store with one writer at a time (SQLite) locks the whole index whatever the folders.
        let named = options.roots.map(Self.standardized)
        let locked = options.reembed ? [] : named.isEmpty ? try store.roots().map(\.path) : named
        let lock = try store.lockForWriting(roots: locked)
        defer { lock.release() }
        let existing = try store.manifest()
        var match = Fingerprint.Match.same
        if let existing, !options.reembed {
            // A model mismatch is known before anything else is asked of the server, and is the more useful message.
            match = try await Fingerprint.checkModel(existing: existing, embedder: embedder, indexPath: store.location)
        }
        let counting = Counter()
        let info = try await RetryingEmbedder(embedder, policy: options.retry).inspect()
        // The probe's retries count with the run's: it is the first text a new index embeds.
        let retrying = RetryingEmbedder(embedder, policy: options.retry, onRetry: { _ in counting.increment() })
        let chunker = ChunkerConfiguration(
            maxTokens: options.maxTokens ?? Self.chunkBudget(contextLength: info.contextLength))
        // The probe costs one embedding: made for a new index, a re-embed, an index that has none yet (the
        // migration) and a server whose host changed; an index whose own embedder runs again already has it.
        let needsProbe =
            existing == nil || options.reembed || existing?.probeVector == nil
            || (existing?.modelDigest != info.digest && existing?.modelDigest?.hasPrefix("host=") == true)
        let proposed = Fingerprint.manifest(
            embedder: embedder, info: info, chunker: chunker,
            probe: needsProbe && match == .same ? try await Fingerprint.probe(retrying) : nil)
        if let existing {
            if options.reembed {
                try Fingerprint.checkChunker(existing: existing, proposed: proposed, indexPath: store.location)
            } else {
                try Fingerprint.check(existing: existing, proposed: proposed, match: match, indexPath: store.location)
                if existing.probeVector == nil, match == .same {
                    // An index made before probe vectors: its own embedder records one now (the migration).
                    var migrated = existing
                    migrated.probeVector = proposed.probeVector
                    try store.inTransaction { try store.writeManifest(migrated) }
                }
            }
        } else {
            try store.inTransaction { try store.writeManifest(proposed) }
        }

        let roots = named.isEmpty ? try store.roots().map(\.path) : named
        guard !roots.isEmpty else {
            throw IndexError(code: .noRoots, message: "index \(store.location) has no folders yet — run: trove index FOLDER")
        }
        var run = Run(
            store: store,
            embedding: EmbeddingStage(
                embedder: embedder, policy: options.retry, onRetry: { _ in counting.increment() },
                dimension: info.dimension, batchSize: max(1, options.batchSize)),
            documentPrefix: proposed.documentPrefix, chunker: Chunker(configuration: chunker),
            batchSize: max(1, options.batchSize), jobs: max(1, options.jobs),
            maxDocuments: max(1, options.maxDocumentsPerTransaction), stop: options.stop,
            generation: try store.vectorGeneration())
        if options.reembed, existing != nil {
            try await run.reembed(manifest: proposed, report: report)
        }
        for root in roots where !run.summary.interrupted {
            var scope: [String]?
            if let within = options.within {
                let relative = Self.relativePaths(within.map(Self.standardized), under: root)
                if relative.isEmpty { continue }
                scope = relative.contains("") ? nil : relative
            }
            try await run.index(root: root, scope: scope, crawl: options.crawl, report: report)
        }
        run.summary.retries = counting.value
        run.summary.seconds = (ContinuousClock.now - started).seconds
        return run.summary
    }

    static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The paths of `absolute` that lie in `root`, relative to it (`""` for the root itself).
    static func relativePaths(_ absolute: [String], under root: String) -> [String] {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return absolute.compactMap { path in
            if path == root { return "" }
            return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
        }
    }
}

/// An atomic counter that a `@Sendable` closure can bump.
private final class Counter: Sendable {
    private let atomic = Atomic<Int>(0)
    func increment() { atomic.add(1, ordering: .relaxed) }
    var value: Int { atomic.load(ordering: .relaxed) }
}

/// The embedding side of the pipeline: Sendable, so each batch runs in a task of its own.
struct EmbeddingStage: Sendable {
    /// Retries every transient failure; used for whole batches and for single inputs.
    let full: RetryingEmbedder
    /// Retries only connection trouble; used while halving a failed batch, where a 5xx is the expected outcome.
    let splitting: RetryingEmbedder
    let dimension: Int
    let batchSize: Int

    init(
        embedder: any Embedder, policy: RetryPolicy, onRetry: @escaping @Sendable (any Error) -> Void,
        dimension: Int, batchSize: Int
    ) {
        full = RetryingEmbedder(embedder, policy: policy, onRetry: onRetry)
        splitting = RetryingEmbedder(
            embedder, policy: policy,
            shouldRetry: { error in
                guard let kind = (error as? OllamaError)?.kind else { return false }
                return kind == .unreachable || kind == .timeout || kind == .serverBusy
            }, onRetry: onRetry)
        self.dimension = dimension
        self.batchSize = batchSize
    }

    /// One vector, or why this input could not be embedded.
    enum Outcome: Sendable {
        case vector([Float])
        case failed(String)
    }

    /// Embeds `texts` in requests of `batchSize`; an input the server refuses is isolated by halving the request
    /// and reported as `.failed`, the others still get their vectors. Throws when the server itself is the problem.
    func embedAll(_ texts: [String]) async throws -> [Outcome] {
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(texts.count)
        var start = 0
        while start < texts.count {
            let end = min(start + batchSize, texts.count)
            outcomes += try await isolating(texts[start..<end], first: true)
            start = end
        }
        return outcomes
    }

    private func isolating(_ texts: ArraySlice<String>, first: Bool) async throws -> [Outcome] {
        do {
            let vectors = try await (first || texts.count == 1 ? full : splitting).embed(Array(texts))
            return try vectors.map { vector in
                guard vector.count == dimension else {
                    throw IndexError.dimension(expected: dimension, got: vector.count, model: full.model)
                }
                guard vector.allSatisfy(\.isFinite) else {
                    return .failed("the model returned a vector with NaN or infinity")
                }
                return .vector(VectorMath.normalized(vector))
            }
        } catch let error as OllamaError where error.kind == .badRequest || error.kind == .serverError {
            if texts.count == 1 { return [.failed(error.serverMessage ?? error.message)] }
            let middle = texts.startIndex + texts.count / 2
            let left = try await isolating(texts[..<middle], first: false)
            let right = try await isolating(texts[middle...], first: false)
            let all = left + right
            // Ollama fails a whole batch for one bad input; when every input fails alone too, the server is broken.
            if all.count >= 4, all.allSatisfy({ if case .failed = $0 { true } else { false } }) { throw error }
            return all
        }
    }
}

/// One pass's state: the batches in flight and the running totals.
private struct Run {
    let store: any IndexBackend
    let embedding: EmbeddingStage
    let documentPrefix: String
    let chunker: Chunker
    let batchSize: Int
    let jobs: Int
    let maxDocuments: Int
    let stop: StopSignal?
    /// The vector generation this run embeds for; every transaction checks it is still current.
    var generation: Int64
    var summary = IndexSummary()
    var filesDone = 0

    /// A document to write, or one whose content is unchanged and only needs its stat refreshed.
    struct Item {
        var document: NewDocument
        var existingID: Int64?
        /// nil: content unchanged, refresh the stat only.
        var chunks: [Chunk]?
        /// Content hash of each chunk's embedding text, parallel to `chunks`.
        var hashes: [String]
    }

    /// Documents committed together, with their embedding request running.
    struct Batch {
        var items: [Item]
        /// Vectors already in the index, by chunk hash.
        var known: [String: [Float]]
        /// The hashes sent for embedding, parallel to the task's outcomes.
        var sent: [String]
        var task: Task<[EmbeddingStage.Outcome], any Error>
    }

    var filling: [Item] = []
    var fillingChunks = 0
    var inFlight: [Batch] = []

    var stopped: Bool { stop?.isStopped ?? false }

    /// Indexes `root`, or only `scope` (root-relative paths) of it when given.
    mutating func index(root: String, scope: [String]?, crawl: CrawlOptions, report: (IndexEvent) -> Void)
        async throws
    {
        var files: [CrawledFile] = []
        var skippedByCrawl: [SkippedFile] = []
        try Crawler(options: crawl).crawl(
            root: root, within: scope, onFile: { files.append($0) }, onSkip: { skippedByCrawl.append($0) })
        for skipped in skippedByCrawl {
            summary.skip(Self.reason(skipped.reason))
            report(.skipped(skipped.description))
        }
        summary.filesTotal += files.count + skippedByCrawl.count
        filesDone += skippedByCrawl.count
        report(.crawled(root: root, files: files.count))

        let rootID = try store.inTransaction { try store.rootID(forPath: root) }
        let existing = try store.documents(inRoot: rootID)
        var present = Set<String>()
        present.reserveCapacity(files.count)
        defer { cancelInFlight() }
        for (position, file) in files.enumerated() {
            if stopped { break }
            let old = existing[file.relativePath]
            if let old, old.size == file.size, old.modifiedNanoseconds == file.modifiedNanoseconds {
                present.insert(file.relativePath)
                summary.unchangedDocuments += 1
                filesDone += 1
                if position % 64 == 63 { reportProgress(report) }
                continue
            }
            let loaded: LoadedDocument
            do {
                loaded = try DocumentLoader.load(file, maxFileSize: crawl.maxFileSize)
            } catch let skip as SkippedFile {
                summary.skip(Self.reason(skip.reason))
                filesDone += 1
                report(.skipped(skip.description))
                continue
            }
            // A file that fails to embed keeps its old version (if any) until a later run succeeds.
            present.insert(file.relativePath)
            if let warning = loaded.decodingWarning(displayPath: file.relativePath) {
                report(.warning(warning))
            }
            let document = NewDocument(
                rootID: rootID, path: file.relativePath, size: file.size,
                modifiedNanoseconds: file.modifiedNanoseconds, contentHash: loaded.contentHash)
            if let old, old.contentHash == loaded.contentHash {
                filling.append(Item(document: document, existingID: old.id, chunks: nil, hashes: []))
            } else {
                let kind = DocumentKind(path: file.relativePath) ?? .plainText
                let chunks = chunker.chunks(of: loaded.text, kind: kind)
                let hashes = chunks.map { ContentHash.sha256Hex(EmbeddingText.forChunk($0).utf8) }
                filling.append(Item(document: document, existingID: old?.id, chunks: chunks, hashes: hashes))
                fillingChunks += chunks.count
            }
            if fillingChunks >= batchSize || filling.count >= maxDocuments {
                try await submit(report: report)
            }
        }
        if !stopped { try await submit(report: report) }
        while !inFlight.isEmpty && !stopped {
            try await commitOldest(report: report)
        }
        if stopped {
            summary.interrupted = true
            return
        }

        let gone = existing.filter { entry in
            !present.contains(entry.key) && scope.map { Crawler.isWithin(entry.key, scope: $0) } ?? true
        }
        if !gone.isEmpty {
            try store.inTransaction {
                try store.checkGeneration(generation)
                for document in gone.values { try store.deleteDocument(id: document.id) }
            }
            summary.removedDocuments += gone.count
            for path in gone.keys.sorted() {
                report(.document(path: path, change: .removed, chunks: 0, reused: 0))
            }
        }
        reportProgress(report)
    }

    /// Starts embedding what `filling` needs (after looking up reusable vectors), then commits the oldest batches
    /// while more than `jobs` are in flight.
    mutating func submit(report: (IndexEvent) -> Void) async throws {
        guard !filling.isEmpty else { return }
        var wanted: [String] = []
        var seen = Set<String>()
        for item in filling {
            for hash in item.hashes where seen.insert(hash).inserted { wanted.append(hash) }
        }
        let known = try store.vectors(forContentHashes: wanted)
        var sent: [String] = []
        var sending = Set<String>()
        var texts: [String] = []
        for item in filling {
            guard let chunks = item.chunks else { continue }
            for (chunk, hash) in zip(chunks, item.hashes) where known[hash] == nil && sending.insert(hash).inserted {
                sent.append(hash)
                texts.append(documentPrefix + EmbeddingText.forChunk(chunk))
            }
        }
        let stage = embedding
        let task = Task { try await stage.embedAll(texts) }
        inFlight.append(Batch(items: filling, known: known, sent: sent, task: task))
        filling.removeAll(keepingCapacity: true)
        fillingChunks = 0
        while inFlight.count > jobs - 1 && !inFlight.isEmpty {
            try await commitOldest(report: report)
            if stopped { return }
        }
    }

    /// Waits for the oldest batch's vectors and writes its documents in one transaction.
    mutating func commitOldest(report: (IndexEvent) -> Void) async throws {
        let batch = inFlight.removeFirst()
        let outcomes: [EmbeddingStage.Outcome]
        do {
            outcomes = try await batch.task.value
        } catch let error as OllamaError where error.kind != .cancelled {
            throw stoppedError(error)
        }
        var vectors = batch.known
        var failures: [String: String] = [:]
        for (hash, outcome) in zip(batch.sent, outcomes) {
            switch outcome {
            case .vector(let vector): vectors[hash] = vector
            case .failed(let why): failures[hash] = why
            }
        }
        summary.chunksEmbedded += batch.sent.count
        let sentOnce = Set(batch.sent)
        var written: [(Item, change: DocumentChange, reused: Int)] = []
        var skipped: [String] = []
        try store.inTransaction {
            // Vectors of this run's model must not land in an index re-embedded meanwhile with another one.
            try store.checkGeneration(generation)
            var claimed = Set<String>()
            for item in batch.items {
                guard let chunks = item.chunks else {
                    if let id = item.existingID {
                        try store.updateDocumentStat(
                            id: id, size: item.document.size, modifiedNanoseconds: item.document.modifiedNanoseconds)
                    }
                    written.append((item, .touched, 0))
                    continue
                }
                if let failed = zip(chunks, item.hashes).first(where: { failures[$0.1] != nil }) {
                    let why = failures[failed.1] ?? ""
                    skipped.append(
                        "skipped \(item.document.path): the model could not embed lines "
                            + "\(failed.0.startLine)-\(failed.0.endLine) (\(why))")
                    continue
                }
                var reused = 0
                let rows = zip(chunks, item.hashes).map { chunk, hash -> NewChunk in
                    if !sentOnce.contains(hash) || !claimed.insert(hash).inserted { reused += 1 }
                    return NewChunk(
                        ordinal: chunk.ordinal, startLine: chunk.startLine, endLine: chunk.endLine,
                        heading: chunk.headingPath.joined(separator: " › "), text: chunk.text,
                        contentHash: hash, vector: vectors[hash] ?? [])
                }
                try store.replaceDocument(item.document, chunks: rows)
                written.append((item, item.existingID == nil ? .new : .changed, reused))
            }
        }
        filesDone += batch.items.count
        for (item, change, reused) in written {
            switch change {
            case .new: summary.newDocuments += 1
            case .changed: summary.changedDocuments += 1
            default: summary.unchangedDocuments += 1
            }
            summary.chunksReused += reused
            report(.document(path: item.document.path, change: change, chunks: item.chunks?.count ?? 0, reused: reused))
        }
        for line in skipped {
            summary.skip("not embeddable")
            report(.skipped(line))
        }
        reportProgress(report)
    }

    func reportProgress(_ report: (IndexEvent) -> Void) {
        report(.progress(filesDone: filesDone, filesTotal: summary.filesTotal, chunksEmbedded: summary.chunksEmbedded))
    }

    /// Cancels the requests of batches that will not be committed (stop, error).
    mutating func cancelInFlight() {
        for batch in inFlight { batch.task.cancel() }
        inFlight.removeAll()
        filling.removeAll()
        fillingChunks = 0
    }

    /// Ollama failed for good mid-run: everything committed so far stays; say so, and how to go on.
    func stoppedError(_ error: OllamaError) -> OllamaError {
        var stopped = error
        let saved = summary.newDocuments + summary.changedDocuments
        stopped.message +=
            "; indexing stopped with \(saved) new or changed \(saved == 1 ? "document" : "documents") saved"
            + " — run trove index again to resume"
        return stopped
    }

    /// The short reason a skipped file is counted under in the summary.
    static func reason(_ reason: SkippedFile.Reason) -> String {
        switch reason {
        case .binary: return "binary"
        case .tooLarge: return "too large"
        case .unreadable: return "unreadable"
        }
    }

    // MARK: Re-embedding

    /// Embeds every stored chunk again into a staging table (committed batch by batch, so an interrupted re-embed
    /// resumes), then swaps the new vectors in and writes `manifest` in one transaction. Until that swap, searches
    /// see the old vectors and the old manifest.
    mutating func reembed(manifest: IndexManifest, report: (IndexEvent) -> Void) async throws {
        let key = "\(manifest.embedder):\(manifest.model)@\(manifest.modelDigest ?? "-")#\(manifest.dimension)"
        let staged = try store.reembedState("target")
        try store.beginReembedding(fresh: staged != key)
        try store.inTransaction { try store.setReembedState("target", key) }
        var after: Int64 = 0
        while true {
            if stopped {
                summary.interrupted = true
                return
            }
            let chunks = try store.chunksToReembed(afterID: after, limit: batchSize)
            guard let last = chunks.last else {
                // Chunks added behind the cursor meanwhile get one more pass from the start; the swap below also
                // refuses while any chunk is unstaged.
                if after > 0, try !store.chunksToReembed(afterID: 0, limit: 1).isEmpty {
                    after = 0
                    continue
                }
                break
            }
            after = last.id
            let texts = chunks.map { chunk in
                documentPrefix + (chunk.heading.isEmpty ? chunk.text : chunk.heading + "\n\n" + chunk.text)
            }
            let outcomes: [EmbeddingStage.Outcome]
            do {
                outcomes = try await embedding.embedAll(texts)
            } catch let error as OllamaError where error.kind != .cancelled {
                var stopped = error
                stopped.message += "; the re-embed is saved so far — run trove index --reembed again to resume"
                throw stopped
            }
            var rows: [(chunkID: Int64, vector: [Float])] = []
            for (chunk, outcome) in zip(chunks, outcomes) {
                switch outcome {
                case .vector(let vector): rows.append((chunk.id, vector))
                case .failed(let why):
                    throw IndexError(
                        code: .notEmbeddable,
                        message: "the model could not embed chunk \(chunk.id) (\(why)) — the old vectors are kept; "
                            + "fix or remove that text, then run trove index --reembed again")
                }
            }
            try store.inTransaction {
                try store.checkGeneration(generation)
                try store.stageVectors(rows)
            }
            summary.chunksReembedded += rows.count
            summary.chunksEmbedded += rows.count
            report(.progress(filesDone: 0, filesTotal: 0, chunksEmbedded: summary.chunksEmbedded))
        }
        try store.finishReembedding(manifest: manifest)
        generation = try store.vectorGeneration()
    }
}

/// The text sent to the embedder for a chunk (after the model's document prefix): its heading path gives the
/// passage its context. Its SHA-256 is the chunk's `content_hash`, the key under which vectors are reused.
enum EmbeddingText {
    static func forChunk(_ chunk: Chunk) -> String {
        chunk.headingPath.isEmpty ? chunk.text : chunk.headingPath.joined(separator: " › ") + "\n\n" + chunk.text
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
