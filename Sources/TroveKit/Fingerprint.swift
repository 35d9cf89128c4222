import TroveIngest
import TroveStore

/// Builds the manifest an index run would write, and checks it against the one an index already has.
enum Fingerprint {
    /// Bumped when the text sent to the embedder for a chunk changes shape (heading line, separators).
    static let documentFormat = 1

    static func manifest(
        embedder: any Embedder, info: EmbedderInfo, chunker: ChunkerConfiguration
    ) -> IndexManifest {
        let prefixes = EmbeddingPrefixes.forModel(embedder.model)
        return IndexManifest(
            embedder: embedder.kind, model: embedder.model, modelDigest: info.digest, dimension: info.dimension,
            chunkerVersion: ChunkerConfiguration.version,
            chunkerParameters: "\(chunker.fingerprint),format=\(documentFormat)",
            queryPrefix: prefixes.query, documentPrefix: prefixes.document)
    }

    static func checkModel(existing: IndexManifest, embedder: any Embedder, indexPath: String) throws {
        try checkModel(existing: existing, kind: embedder.kind, model: embedder.model, indexPath: indexPath)
    }

    private static func checkModel(existing: IndexManifest, kind: String, model: String, indexPath: String) throws {
        guard !EmbedderFactory.sameSpace(existing.embedder, existing.model, kind, model) else { return }
        if existing.embedder != kind {
            throw IndexError(
                code: .embedderMismatch,
                message: "index \(indexPath) was built with \(existing.embedder) model '\(existing.model)', "
                    + "not \(kind) model '\(model)' — use --embedder \(existing.embedder) --model \(existing.model), "
                    + "or --index NEW.sqlite for a new index")
        }
        throw IndexError(
            code: .modelMismatch,
            message: "index \(indexPath) was built with \(existing.embedder) model '\(existing.model)', "
                + "not '\(model)' — use --model \(existing.model), or rebuild its vectors: trove index --reembed --model \(model)")
    }

    /// Refuses a run whose vectors would not be comparable with those already stored.
    static func check(existing: IndexManifest, proposed: IndexManifest, indexPath: String) throws {
        try checkModel(existing: existing, kind: proposed.embedder, model: proposed.model, indexPath: indexPath)
        if existing.dimension != proposed.dimension {
            throw IndexError(
                code: .dimensionMismatch,
                message: "index \(indexPath) holds \(existing.dimension)-dimension vectors but '\(proposed.model)' "
                    + "now makes \(proposed.dimension) — rebuild its vectors: trove index --reembed")
        }
        if existing.chunkerVersion != proposed.chunkerVersion
            || existing.chunkerParameters != proposed.chunkerParameters
        {
            throw IndexError(
                code: .chunkerMismatch,
                message: "index \(indexPath) was chunked with version \(existing.chunkerVersion) "
                    + "(\(existing.chunkerParameters)), this trove chunks with version \(proposed.chunkerVersion) "
                    + "(\(proposed.chunkerParameters)) — use --index NEW.sqlite for a new index")
        }
        try checkDigest(existing: existing, proposed: proposed, indexPath: indexPath)
    }
}

extension Fingerprint {
    /// Refuses a `--reembed` whose chunker differs: re-embedding keeps the stored chunks, so they must be the
    /// chunks this trove would make.
    static func checkChunker(existing: IndexManifest, proposed: IndexManifest, indexPath: String) throws {
        if existing.chunkerVersion != proposed.chunkerVersion
            || existing.chunkerParameters != proposed.chunkerParameters
        {
            throw IndexError(
                code: .chunkerMismatch,
                message: "index \(indexPath) was chunked with version \(existing.chunkerVersion) "
                    + "(\(existing.chunkerParameters)), '\(proposed.model)' needs version \(proposed.chunkerVersion) "
                    + "(\(proposed.chunkerParameters)) — use --index NEW.sqlite for a new index")
        }
    }

    /// Refuses a run whose model was re-pulled with other weights under the same name.
    static func checkDigest(existing: IndexManifest, proposed: IndexManifest, indexPath: String) throws {
        guard let old = existing.modelDigest, let new = proposed.modelDigest, old != new else { return }
        if old.hasPrefix("host=") {
            // An OpenAI-compatible server: the same model id on another server may be other weights.
            throw IndexError(
                code: .digestMismatch,
                message: "index \(indexPath) was embedded by '\(proposed.model)' on the server at "
                    + "\(old.dropFirst(5)), not \(new.dropFirst(5)) — use that server's --base-url, or rebuild the "
                    + "vectors: trove index --reembed")
        }
        throw IndexError(
            code: .digestMismatch,
            message: "model '\(proposed.model)' changed since index \(indexPath) was built (digest "
                + "\(old.prefix(12)) → \(new.prefix(12)), after an ollama pull?) — run: trove index --reembed")
    }
}
