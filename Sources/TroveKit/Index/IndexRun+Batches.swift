import Ollama
import TroveIngest
import TroveStore
import TroveSystem

/// The batches in flight: embedding requests started in crawl order, committed oldest first, one transaction each.
extension IndexRun {
    /// Queues `item` for the next batch, and starts that batch once it is full.
    mutating func enqueue(_ item: Item, report: (IndexEvent) -> Void) async throws {
        filling.append(item)
        fillingChunks += item.chunks?.count ?? 0
        if fillingChunks >= batchSize || filling.count >= maxDocuments {
            try await submit(report: report)
        }
    }

    /// Sends what is queued and commits every batch in flight; when stopped, commits nothing more and marks the
    /// summary interrupted.
    mutating func finishBatches(report: (IndexEvent) -> Void) async throws {
        if !stopped { try await submit(report: report) }
        while !inFlight.isEmpty && !stopped {
            try await commitOldest(report: report)
        }
        if stopped { summary.interrupted = true }
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
                        contentHash: hash, vector: vectors[hash] ?? [], locator: chunk.locator?.stored)
                }
                try store.replaceDocument(item.document, chunks: rows)
                written.append((item, item.existingID == nil ? .new : .changed, reused))
            }
        }
        filesDone += batch.items.count
        for (item, change, reused) in written {
            switch change {
            case .new: summary.newDocuments += 1
            case .changed where item.rechunked: summary.rechunkedDocuments += 1
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
}
