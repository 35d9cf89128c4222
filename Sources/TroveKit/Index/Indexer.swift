import Foundation
import TroveExtract
import TroveIngest
import TroveStore

/// Crawl → chunk → embed → store, as a pipeline: the crawl, loading and chunking run on the calling task while up
/// to `jobs` embedding requests are in flight; batches are committed in crawl order, one transaction each, so an
/// interrupted run never leaves a document half-indexed and the next run picks up where this one stopped.
/// Chunks whose text is already stored (same heading and text, anywhere in the index) reuse its vector.
public final class Indexer {
    package let store: any IndexWriter
    public let embedder: any Embedder
    /// The argv that starts the extraction worker (`TroveConfiguration.extractionWorker`).
    let extractionWorker: [String]

    package init(
        store: any IndexWriter, embedder: any Embedder,
        extractionWorker: [String] = ExtractionWorkerCommand.standard
    ) {
        self.store = store
        self.embedder = embedder
        self.extractionWorker = extractionWorker
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
            match = try await Fingerprint.checkModel(existing: existing, embedder: embedder, shownLocation: store.location)
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
        var rechunk = false
        if let existing {
            if options.reembed {
                try Fingerprint.checkChunker(existing: existing, proposed: proposed, shownLocation: store.location)
            } else {
                try Fingerprint.check(existing: existing, proposed: proposed, match: match, shownLocation: store.location)
                rechunk = Fingerprint.chunkerChanged(existing: existing, proposed: proposed)
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
            throw IndexError(
                code: .noRoots, message: "index \(store.location) has no folders yet — run: trove index FOLDER")
        }
        // The worker starts at the first file that needs it, and stops with the run.
        var limits = ExtractionLimits()
        limits.ocrPages = max(0, options.ocrPages)
        let extraction = ExtractionService(workerCommand: extractionWorker, limits: limits)
        defer { extraction.shutdown() }
        var run = IndexRun(
            store: store,
            embedding: EmbeddingStage(
                embedder: embedder, policy: options.retry, onRetry: { _ in counting.increment() },
                dimension: info.dimension, batchSize: max(1, options.batchSize)),
            documentPrefix: proposed.documentPrefix,
            chunker: Chunker(
                configuration: chunker,
                limit: try Self.tokenLimit(embedder: embedder, info: info, prefix: proposed.documentPrefix)),
            batchSize: max(1, options.batchSize), jobs: max(1, options.jobs),
            maxDocuments: max(1, options.maxDocumentsPerTransaction), stop: options.stop, extraction: extraction,
            reextract: options.reextract, retryFailed: options.retryFailed, retryScans: options.ocrPages > 0,
            generation: try store.vectorGeneration())
        if options.reembed, existing != nil {
            try await run.reembed(manifest: proposed, report: report)
        }
        if rechunk, let existing {
            report(
                .notice(
                    "the index was chunked with chunker version \(existing.chunkerVersion) "
                        + "(\(existing.chunkerParameters)); chunking it again from its own text for version "
                        + "\(proposed.chunkerVersion) (\(proposed.chunkerParameters)): no file is read again, only "
                        + "changed passages are embedded"))
            try await run.rechunk(report: report)
            if !run.summary.interrupted {
                // Only a complete pass records the new chunker; a stopped one is run again (it is idempotent).
                try store.inTransaction {
                    guard var manifest = try store.manifest() else { return }
                    manifest.chunkerVersion = proposed.chunkerVersion
                    manifest.chunkerParameters = proposed.chunkerParameters
                    try store.writeManifest(manifest)
                }
            }
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

    /// Ollama's default `num_ctx`, the context it embeds with when the request names none (ours do not): a longer
    /// input is truncated to it whatever the model's own context.
    static let ollamaContext = 2048

    /// The context no chunk may exceed: the built-in model's, counted with its own tokenizer; another model's, when
    /// its server tells it (for Ollama at most its default `num_ctx`), counted with `TokenEstimate` (its tokenizer
    /// is not known here); nil when unknown (then the chunk budget is the limit).
    package static func tokenLimit(embedder: any Embedder, info: EmbedderInfo, prefix: String) throws -> TokenLimit? {
        guard var context = info.contextLength, context > 0 else { return nil }
        if embedder is OllamaEmbedder { context = min(context, ollamaContext) }
        if let builtin = embedder as? BuiltinEmbedder {
            let tokenizer = try builtin.encoder().tokenizer
            // `encode` adds [CLS] and [SEP], which `markers` counts once.
            return TokenLimit(context: context, markers: 2, prefix: prefix, counting: .tokenizer) {
                tokenizer.encode(String($0), maxLength: .max).count - 2
            }
        }
        return TokenLimit.estimated(context: context, prefix: prefix)
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
