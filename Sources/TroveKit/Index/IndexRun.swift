import Ollama
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
                let hashes = chunks.map { SHA256.hex(EmbeddingText.forChunk($0).utf8) }
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
}
