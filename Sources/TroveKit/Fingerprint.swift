import TroveIngest
import TroveStore

/// Builds the manifest an index run would write, and checks it against the one an index already has.
enum Fingerprint {
    /// Bumped when the text sent to the embedder for a chunk changes shape (heading line, separators).
    static let documentFormat = 1

    /// The text whose embedding every index keeps, to check that another embedder makes the same vectors.
    static let probeText = "Trove probe: how do I rotate the SSH keys on the bastion host? The quick brown fox."

    /// From this cosine between probe vectors on, two embedders count as one space: the built-in MiniLM, Ollama's
    /// all-minilm and llama.cpp serving the same GGUF agree at 0.9999+; two different models stay far below.
    static let probeAgreement: Float = 0.999

    static func manifest(
        embedder: any Embedder, info: EmbedderInfo, chunker: ChunkerConfiguration, probe: [Float]?
    ) -> IndexManifest {
        let prefixes = EmbeddingPrefixes.forModel(embedder.model)
        return IndexManifest(
            provider: embedder.provider, model: embedder.model, modelDigest: info.digest, dimension: info.dimension,
            chunkerVersion: ChunkerConfiguration.version,
            chunkerParameters: "\(chunker.fingerprint),format=\(documentFormat)",
            queryPrefix: prefixes.query, documentPrefix: prefixes.document, probeVector: probe)
    }

    /// The unit-length embedding of the probe text by `embedder`.
    static func probe(_ embedder: any Embedder) async throws -> [Float] {
        guard let vector = try await embedder.embed([probeText]).first, !vector.isEmpty else {
            throw IndexError(code: .embedderMismatch, message: "\(embedder.provider) model '\(embedder.model)' returned no probe vector")
        }
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? vector.map { $0 / norm } : vector
    }

    /// The cosine of two probe vectors; nil when their lengths differ.
    static func agreement(_ a: [Float], _ b: [Float]) -> Float? {
        guard a.count == b.count, !a.isEmpty else { return nil }
        var dot: Float = 0
        var normA: Float = 0
        var normB: Float = 0
        for (x, y) in zip(a, b) {
            dot += x * y
            normA += x * x
            normB += y * y
        }
        return normA > 0 && normB > 0 ? dot / (normA.squareRoot() * normB.squareRoot()) : 0
    }

    /// How a run's embedder relates to the one an index records.
    enum Match: Equatable {
        /// The same provider and model.
        case same
        /// Another provider or model whose probe vector agrees with the index's (the cosine).
        case probe(Float)
    }

    /// Whether `embedder` may add vectors to (or search) an index whose manifest is `existing`: the same provider
    /// and model, or a probe vector that agrees with the index's. Anything else is refused with both sides named.
    /// An index made before probe vectors existed accepts only its own embedder (which then records one).
    static func checkModel(existing: IndexManifest, embedder: any Embedder, shownLocation: String) async throws -> Match {
        if existing.provider == embedder.provider && existing.model == embedder.model { return .same }
        let code: IndexError.Code = existing.provider != embedder.provider ? .embedderMismatch : .modelMismatch
        let sides =
            "index \(shownLocation) was built with \(existing.provider) model '\(existing.model)', not \(embedder.provider) "
            + "model '\(embedder.model)'"
        let remedy =
            "use --provider \(existing.provider) --model \(existing.model), or --index NEW.sqlite for a new index"
        guard let stored = existing.probeVector else {
            throw IndexError(
                code: code,
                message: sides + ", and it records no probe vector to compare them with (it predates them) — "
                    + "run trove index once with --provider \(existing.provider) --model \(existing.model) to record "
                    + "one, or use --index NEW.sqlite for a new index")
        }
        let offered: [Float]
        do { offered = try await probe(embedder) } catch {
            throw IndexError(code: code, message: sides + " (whose probe vector could not be made: \(error)) — " + remedy)
        }
        guard let cosine = agreement(stored, offered) else {
            throw IndexError(
                code: code,
                message: sides + ": its vectors have \(offered.count) dimensions, not \(stored.count) — " + remedy)
        }
        guard cosine >= probeAgreement else {
            let shown = ((cosine * 10_000).rounded() / 10_000).description
            throw IndexError(
                code: code,
                message: sides + ": their probe vectors agree at cosine \(shown), below \(probeAgreement), so their "
                    + "vectors do not compare — " + remedy)
        }
        return .probe(cosine)
    }

    /// Refuses a run whose vectors would not be comparable with those already stored; `match` is how its embedder
    /// passed `checkModel`.
    static func check(existing: IndexManifest, proposed: IndexManifest, match: Match, shownLocation: String) throws {
        if existing.dimension != proposed.dimension {
            throw IndexError(
                code: .dimensionMismatch,
                message: "index \(shownLocation) holds \(existing.dimension)-dimension vectors but '\(proposed.model)' "
                    + "now makes \(proposed.dimension) — rebuild its vectors: trove index --reembed")
        }
        // A chunker change is no mismatch: the run chunks the index again from its own text (`rechunk`).
        // Another provider or model whose probe agreed: its digest (another model's weights) says nothing more.
        if case .probe = match { return }
        // The same model id on another OpenAI-compatible server: the probe tells whether it is the same model. (An
        // Ollama digest is about the weights themselves: a re-pull that changed them is refused whatever one probe
        // text shows.)
        if existing.modelDigest?.hasPrefix("host=") == true, let old = existing.probeVector,
            let new = proposed.probeVector, let cosine = agreement(old, new), cosine >= probeAgreement
        {
            return
        }
        try checkDigest(existing: existing, proposed: proposed, shownLocation: shownLocation)
    }
}

extension Fingerprint {
    /// Whether the index was chunked otherwise (another chunker version or parameters) than this run chunks.
    static func chunkerChanged(existing: IndexManifest, proposed: IndexManifest) -> Bool {
        existing.chunkerVersion != proposed.chunkerVersion || existing.chunkerParameters != proposed.chunkerParameters
    }

    /// Refuses a `--reembed` whose chunker differs: re-embedding keeps the stored chunks, so they must be the
    /// chunks this trove would make.
    static func checkChunker(existing: IndexManifest, proposed: IndexManifest, shownLocation: String) throws {
        if chunkerChanged(existing: existing, proposed: proposed) {
            throw IndexError(
                code: .chunkerMismatch,
                message: "index \(shownLocation) was chunked with version \(existing.chunkerVersion) "
                    + "(\(existing.chunkerParameters)), '\(proposed.model)' needs version \(proposed.chunkerVersion) "
                    + "(\(proposed.chunkerParameters)) — run trove index first (it chunks the index again), then "
                    + "--reembed")
        }
    }

    /// Refuses a run whose model was re-pulled with other weights under the same name.
    static func checkDigest(existing: IndexManifest, proposed: IndexManifest, shownLocation: String) throws {
        guard let old = existing.modelDigest, let new = proposed.modelDigest, old != new else { return }
        if old.hasPrefix("host=") {
            // An OpenAI-compatible server: the same model id on another server may be other weights.
            throw IndexError(
                code: .digestMismatch,
                message: "index \(shownLocation) was embedded by '\(proposed.model)' on the server at "
                    + "\(old.dropFirst(5)), not \(new.dropFirst(5)) — use that server's --base-url, or rebuild the "
                    + "vectors: trove index --reembed")
        }
        throw IndexError(
            code: .digestMismatch,
            message: "model '\(proposed.model)' changed since index \(shownLocation) was built (digest "
                + "\(old.prefix(12)) → \(new.prefix(12)), after an ollama pull?) — run: trove index --reembed")
    }
}
