import Foundation
import TroveIngest
import TroveSearch
import TroveStore

/// What to index and how.
public struct IndexOptions: Sendable {
    /// Folders to index; empty refreshes every root the index already has.
    public var roots: [String]
    public var crawl: CrawlOptions
    /// Chunks per embedding request.
    public var batchSize: Int
    /// Overrides the chunk budget derived from the model's context length.
    public var maxTokens: Int?

    public init(roots: [String], crawl: CrawlOptions = CrawlOptions(), batchSize: Int = 64, maxTokens: Int? = nil) {
        self.roots = roots
        self.crawl = crawl
        self.batchSize = batchSize
        self.maxTokens = maxTokens
    }
}

/// Crawl → chunk → embed → store. Each batch of documents is written in one transaction, so an interrupted run
/// never leaves a document half-indexed and the next run picks up where this one stopped.
public final class Indexer {
    public let store: IndexStore
    public let embedder: any Embedder

    public init(store: IndexStore, embedder: any Embedder) {
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
        let existing = try store.manifest()
        if let existing {
            // A model mismatch is known before asking Ollama anything, and is the more useful message.
            try Fingerprint.checkModel(existing: existing, embedder: embedder, indexPath: store.path)
        }
        let info = try await embedder.inspect()
        let chunker = ChunkerConfiguration(maxTokens: options.maxTokens ?? Self.chunkBudget(contextLength: info.contextLength))
        let proposed = Fingerprint.manifest(embedder: embedder, info: info, chunker: chunker)
        if let existing {
            try Fingerprint.check(existing: existing, proposed: proposed, indexPath: store.path)
        } else {
            try store.inTransaction { try store.writeManifest(proposed) }
        }

        let roots = options.roots.isEmpty ? try store.roots().map(\.path) : options.roots.map(Self.standardized)
        guard !roots.isEmpty else {
            throw IndexError(code: .noRoots, message: "index \(store.path) has no folders yet — run: trove index FOLDER")
        }
        var run = Run(
            store: store, embedder: embedder, dimension: info.dimension, documentPrefix: proposed.documentPrefix,
            chunker: Chunker(configuration: chunker), batchSize: max(1, options.batchSize))
        for root in roots {
            try await run.index(root: root, crawl: options.crawl, report: report)
        }
        run.summary.seconds = (ContinuousClock.now - started).seconds
        return run.summary
    }

    static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}

/// One pass's state: the batch being filled and the running totals.
private struct Run {
    let store: IndexStore
    let embedder: any Embedder
    let dimension: Int
    let documentPrefix: String
    let chunker: Chunker
    let batchSize: Int
    var summary = IndexSummary()
    var pending: [PendingDocument] = []
    var pendingChunks = 0
    var filesDone = 0
    var filesTotal = 0

    /// A document waiting for its vectors, or one whose content is unchanged and only needs its stat refreshed.
    struct PendingDocument {
        var document: NewDocument
        var chunks: [Chunk]
        var existingID: Int64?
        var contentUnchanged: Bool
    }

    mutating func index(root: String, crawl: CrawlOptions, report: (IndexEvent) -> Void) async throws {
        var files: [CrawledFile] = []
        var skipped = 0
        try Crawler(options: crawl).crawl(
            root: root, onFile: { files.append($0) },
            onSkip: {
                skipped += 1
                report(.skipped($0.description))
            })
        summary.skippedFiles += skipped
        filesTotal += files.count
        report(.crawled(root: root, files: files.count))

        let rootID = try store.inTransaction { try store.rootID(forPath: root) }
        let existing = try store.documents(inRoot: rootID)
        var present = Set<String>()
        for file in files {
            filesDone += 1
            let old = existing[file.relativePath]
            if let old, old.size == file.size, old.modifiedNanoseconds == file.modifiedNanoseconds {
                present.insert(file.relativePath)
                summary.unchangedDocuments += 1
                continue
            }
            let loaded: LoadedDocument
            do {
                loaded = try DocumentLoader.load(file, maxFileSize: crawl.maxFileSize)
            } catch let skip as SkippedFile {
                summary.skippedFiles += 1
                report(.skipped(skip.description))
                continue
            }
            present.insert(file.relativePath)
            if let warning = loaded.decodingWarning(displayPath: file.relativePath) {
                report(.warning(warning))
            }
            let document = NewDocument(
                rootID: rootID, path: file.relativePath, size: file.size,
                modifiedNanoseconds: file.modifiedNanoseconds, contentHash: loaded.contentHash)
            if let old, old.contentHash == loaded.contentHash {
                pending.append(PendingDocument(document: document, chunks: [], existingID: old.id, contentUnchanged: true))
                continue
            }
            let kind = DocumentKind(path: file.relativePath) ?? .plainText
            let chunks = chunker.chunks(of: loaded.text, kind: kind)
            pending.append(PendingDocument(document: document, chunks: chunks, existingID: old?.id, contentUnchanged: false))
            pendingChunks += chunks.count
            if pendingChunks >= batchSize {
                try await flush(report: report)
            }
        }
        try await flush(report: report)

        let gone = existing.filter { !present.contains($0.key) }
        if !gone.isEmpty {
            try store.inTransaction {
                for document in gone.values { try store.deleteDocument(id: document.id) }
            }
            summary.removedDocuments += gone.count
        }
    }

    /// Embeds every pending chunk, then writes the pending documents in one transaction.
    mutating func flush(report: (IndexEvent) -> Void) async throws {
        guard !pending.isEmpty else { return }
        let texts = pending.flatMap { $0.chunks.map { documentPrefix + EmbeddingText.forChunk($0) } }
        var vectors: [[Float]] = []
        vectors.reserveCapacity(texts.count)
        var start = 0
        while start < texts.count {
            let end = min(start + batchSize, texts.count)
            let batch = try await embedder.embed(Array(texts[start..<end]))
            for vector in batch {
                guard vector.count == dimension else {
                    throw IndexError.dimension(expected: dimension, got: vector.count, model: embedder.model)
                }
                vectors.append(VectorMath.normalized(vector))
            }
            start = end
        }

        let batch = pending
        try store.inTransaction {
            var next = 0
            for item in batch {
                if item.contentUnchanged, let id = item.existingID {
                    try store.updateDocumentStat(
                        id: id, size: item.document.size, modifiedNanoseconds: item.document.modifiedNanoseconds)
                    continue
                }
                let rows = item.chunks.map { chunk -> NewChunk in
                    defer { next += 1 }
                    return NewChunk(
                        ordinal: chunk.ordinal, startLine: chunk.startLine, endLine: chunk.endLine,
                        heading: chunk.headingPath.joined(separator: " › "), text: chunk.text,
                        contentHash: ContentHash.sha256Hex(chunk.text.utf8), vector: vectors[next])
                }
                try store.replaceDocument(item.document, chunks: rows)
            }
        }
        for item in batch {
            if item.contentUnchanged {
                summary.unchangedDocuments += 1
            } else if item.existingID == nil {
                summary.newDocuments += 1
            } else {
                summary.changedDocuments += 1
            }
        }
        summary.chunksEmbedded += texts.count
        pending.removeAll(keepingCapacity: true)
        pendingChunks = 0
        report(.progress(filesDone: filesDone, filesTotal: filesTotal, chunksEmbedded: summary.chunksEmbedded))
    }
}

/// The text sent to the embedder for a chunk: its heading path gives the passage its context.
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
