import Foundation
import TroveKit
import TroveMiniLM
import TroveStore

/// How a command picks its embedder: `--embedder`, else the index's, else `TROVE_EMBEDDER`, else `ollama`.
extension Settings {
    /// The built-in model's folder (`TROVE_MODELS`, `XDG_DATA_HOME`, `HOME`).
    var modelFolder: String { ModelFolder.resolve(environment: environment) }

    /// The embedder for `--embedder` and `--model` flags against an index that may already record one.
    func embedder(kindFlag: String?, modelFlag: String?, indexed: IndexManifest?) throws -> any Embedder {
        let recorded = indexed.map { IndexedEmbedder(kind: $0.embedder, model: $0.model) }
        let kind: String
        do {
            kind = try EmbedderFactory.kind(kindFlag) ?? recorded?.kind
                ?? EmbedderFactory.kind(environment["TROVE_EMBEDDER"]) ?? "ollama"
        } catch let error as EmbedderChoiceError {
            throw UsageError(error.message)
        }
        let model =
            modelFlag.flatMap { $0.isEmpty ? nil : $0 }
            ?? EmbedderFactory.defaultModel(kind: kind, indexed: recorded, ollamaDefault: embedModel(flag: nil))
        do {
            // TROVE_EMBED_THREADS: worker threads of the builtin embedder (default: one per CPU).
            let threads = environment["TROVE_EMBED_THREADS"].flatMap { Int($0) }.map { max(1, $0) }
            return try EmbedderFactory.make(
                kind: kind, model: model, client: client, modelFolder: modelFolder, threads: threads)
        } catch let error as EmbedderChoiceError {
            throw UsageError(error.message)
        }
    }
}
