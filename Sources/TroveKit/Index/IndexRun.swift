import Foundation
import Ollama
import TroveExtract
import TroveIngest
import TroveStore
import TroveSystem

/// One pass's state: the batches in flight and the running totals.
struct IndexRun {
    let store: any IndexWriter
    let embedding: EmbeddingStage
    let documentPrefix: String
    let chunker: Chunker
    let batchSize: Int
    let jobs: Int
    let maxDocuments: Int
    let stop: StopSignal?
    /// Reads files of extracted formats in the worker; nil when the run has none (a re-embed alone).
    let extraction: ExtractionService?
    /// `--reextract`: extracted files are read again even when unchanged or already indexed elsewhere.
    let reextract: Bool
    /// `--retry-failed`: remembered extraction failures are tried again.
    let retryFailed: Bool
    /// `--ocr`: files remembered as scans (no text layer) are tried again, now that OCR may read them.
    let retryScans: Bool
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
        /// Chunked again from the index's own text after a chunker change (the file was not read).
        var rechunked = false
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
        do {
            try await index(root: root, rootID: rootID, files: files, scope: scope, crawl: crawl, report: report)
        } catch {
            // The model server went away, or the pass failed otherwise: what it left undone is marked for `status`.
            try? recordStop(root: root, rootID: rootID, files: files)
            throw error
        }
        if stopped {
            try recordStop(root: root, rootID: rootID, files: files)
        } else if scope == nil {
            // Only a pass over the whole folder clears an earlier mark: a watch's pass over part of it does not.
            try store.recordRun(root: root, RunRecord(finishedAt: Self.now, interrupted: false))
        }
    }

    /// Seconds since 1970.
    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// Marks the pass over `root` as stopped early (`RunRecord`), with how many of the crawled files the store does not
    /// hold at their current size and mtime.
    private func recordStop(root: String, rootID: Int64, files: [CrawledFile]) throws {
        let stored = try store.documents(inRoot: rootID)
        let left = files.count { file in
            guard let old = stored[file.relativePath] else { return true }
            return old.size != file.size || old.modifiedNanoseconds != file.modifiedNanoseconds
        }
        try store.recordRun(root: root, RunRecord(finishedAt: Self.now, interrupted: true, filesLeft: left))
    }

    /// The pass over the crawled `files` of `root`.
    private mutating func index(
        root: String, rootID: Int64, files: [CrawledFile], scope: [String]?, crawl: CrawlOptions,
        report: (IndexEvent) -> Void
    ) async throws {
        let existing = try store.documents(inRoot: rootID)
        var present = Set<String>()
        present.reserveCapacity(files.count)
        defer { cancelInFlight() }
        for (position, file) in files.enumerated() {
            if stopped { break }
            let old = existing[file.relativePath]
            let kind = DocumentKind(path: file.relativePath) ?? .plainText
            let reread: Bool
            if case .extracted = kind { reread = reextract } else { reread = false }
            if let old, old.size == file.size, old.modifiedNanoseconds == file.modifiedNanoseconds, !reread {
                present.insert(file.relativePath)
                summary.unchangedDocuments += 1
                filesDone += 1
                if position % 64 == 63 { reportProgress(report) }
                continue
            }
            if case .extracted(let format) = kind {
                let item = try await extractedItem(
                    file, format: format, old: old, rootID: rootID, report: report)
                // A file that cannot be read now keeps its old version (if any), as one that fails to embed does.
                if old != nil || item != nil { present.insert(file.relativePath) }
                guard let item else {
                    filesDone += 1
                    continue
                }
                try await enqueue(item, report: report)
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
            } else if loaded.encoding != "UTF-8" {
                report(.decoded(path: file.relativePath, encoding: loaded.encoding))
            }
            let document = NewDocument(
                rootID: rootID, path: file.relativePath, size: file.size,
                modifiedNanoseconds: file.modifiedNanoseconds, contentHash: loaded.contentHash)
            if let old, old.contentHash == loaded.contentHash {
                try await enqueue(Item(document: document, existingID: old.id, chunks: nil, hashes: []), report: report)
            } else {
                let chunks = chunker.chunks(of: loaded.text, kind: kind)
                let hashes = chunks.map { SHA256.hex(EmbeddingText.forChunk($0).utf8) }
                try await enqueue(
                    Item(document: document, existingID: old?.id, chunks: chunks, hashes: hashes), report: report)
            }
        }
        try await finishBatches(report: report)
        if stopped { return }

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

    /// The short reason a skipped file is counted under in the summary.
    static func reason(_ reason: SkippedFile.Reason) -> String {
        switch reason {
        case .binary: return "binary"
        case .tooLarge, .tooLargeToExtract: return "too large"
        case .unreadable: return "unreadable"
        }
    }
}
