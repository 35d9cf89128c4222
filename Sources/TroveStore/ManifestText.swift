/// The manifest as rows of a TEXT key/value table, the same in every store. The `generation` key is not part of
/// the fingerprint (it counts vector swaps) and is never read or written here, nor are the `run:` rows
/// (`RunRecord`).
enum ManifestText {
    private static let keys = (
        embedder: "embedder", model: "model", modelDigest: "model_digest", dimension: "dimension",
        chunkerVersion: "chunker_version", chunkerParameters: "chunker_parameters", queryPrefix: "query_prefix",
        documentPrefix: "document_prefix", probeVector: "probe_vector"
    )

    /// Removes the fingerprint's rows, keeping the generation and the run records (the same SQL in every store).
    static let deleteFingerprint =
        "DELETE FROM manifest WHERE key != 'generation' AND key NOT LIKE '\(RunRecord.keyPrefix)%'"

    /// The manifest the rows hold, nil for none; `damaged` makes the store's error for a row that does not check out.
    static func decode(_ values: [String: String], damaged: (String) -> StoreError) throws -> IndexManifest? {
        var values = values.filter { !$0.key.hasPrefix(RunRecord.keyPrefix) }
        values["generation"] = nil
        if values.isEmpty { return nil }
        func text(_ key: String) throws -> String {
            guard let value = values[key] else { throw damaged("its manifest has no \(key)") }
            return value
        }
        func number(_ key: String) throws -> Int {
            let value = try text(key)
            guard let number = Int(value) else { throw damaged("its manifest's \(key) is \"\(value)\", not a number") }
            return number
        }
        // The provider is decoded here, at the store's edge: above it, no one compares its text.
        let word = try text(keys.embedder)
        guard let provider = Provider(rawValue: word) else {
            throw damaged("its manifest's \(keys.embedder) is \"\(word)\", not \(Provider.spelled())")
        }
        return IndexManifest(
            provider: provider, model: try text(keys.model), modelDigest: values[keys.modelDigest],
            dimension: try number(keys.dimension), chunkerVersion: try number(keys.chunkerVersion),
            chunkerParameters: try text(keys.chunkerParameters), queryPrefix: try text(keys.queryPrefix),
            documentPrefix: try text(keys.documentPrefix),
            probeVector: try values[keys.probeVector].map { text in
                guard let vector = ProbeVectorText.decode(text) else {
                    throw damaged("its manifest's probe_vector is not base64 float32s")
                }
                return vector
            })
    }

    /// The rows that hold `manifest`.
    static func encode(_ manifest: IndexManifest) -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = [
            (keys.embedder, manifest.provider.rawValue), (keys.model, manifest.model),
            (keys.dimension, String(manifest.dimension)), (keys.chunkerVersion, String(manifest.chunkerVersion)),
            (keys.chunkerParameters, manifest.chunkerParameters), (keys.queryPrefix, manifest.queryPrefix),
            (keys.documentPrefix, manifest.documentPrefix),
        ]
        if let digest = manifest.modelDigest { pairs.append((keys.modelDigest, digest)) }
        if let probe = manifest.probeVector { pairs.append((keys.probeVector, ProbeVectorText.encode(probe))) }
        return pairs
    }
}
