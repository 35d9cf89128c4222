import Ollama
import TroveStore

extension IndexRun {
    /// Embeds every stored chunk again into a staging table (committed batch by batch, so an interrupted re-embed
    /// resumes), then swaps the new vectors in and writes `manifest` in one transaction. Until that swap, searches
    /// see the old vectors and the old manifest.
    mutating func reembed(manifest: IndexManifest, report: (IndexEvent) -> Void) async throws {
        let key = "\(manifest.provider):\(manifest.model)@\(manifest.modelDigest ?? "-")#\(manifest.dimension)"
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
            let texts = chunks.map { documentPrefix + EmbeddingText.forStored(heading: $0.heading, text: $0.text) }
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
