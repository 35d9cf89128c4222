import Synchronization
import TroveMiniLM
import TroveSystem

/// Embeds in-process with all-MiniLM-L6-v2 on OpenBLAS: no server. Same vectors as Ollama's `all-minilm`.
public struct BuiltinEmbedder: Embedder {
    /// The one model the built-in embedder runs, as recorded in the index.
    public static let modelName = "all-minilm-l6-v2"
    /// SHA-256 of `model.safetensors`, recorded as the index's digest.
    public static let digest = "sha256:53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

    public var provider: Provider { .builtin }
    public var model: String { Self.modelName }
    /// The folder holding `model.safetensors` and `vocab.txt`.
    public let folder: String
    /// Worker threads per batch (each runs single-threaded BLAS).
    public var threads: Int
    /// The products of batches longer than a query (indexing): by default the fastest this CPU runs whose ranking
    /// matched fp32's (`Precision.automatic`).
    package var precision = Precision.automatic
    private let loader: Loader

    /// An embedder for the model in `folder`; the files are read on first use, so an index mismatch is reported
    /// before a missing model. A missing file is an error naming `trove models install builtin`.
    public init(folder: String, threads: Int = MiniLM.defaultThreads) {
        self.folder = folder
        self.threads = threads
        loader = Loader.shared(folder: folder)
    }

    /// The encoder, loaded once.
    package func encoder() throws -> MiniLM { try loader.load() }

    public func inspect() async throws -> EmbedderInfo {
        _ = try encoder()
        return EmbedderInfo(dimension: MiniLM.dimension, contextLength: MiniLM.contextLength, digest: Self.digest)
    }

    public func embed(_ texts: [String]) async throws -> [[Float]] {
        guard !texts.isEmpty else { return [] }
        let encoder = try encoder()
        let threads = threads
        let precision = precision
        // Seconds of CPU work must not hold a thread of the cooperative pool (nor `DispatchQueue.global()`'s, the
        // same threads on Linux).
        return await onOwnThread { encoder.embed(texts, threads: threads, precision: precision) }
    }

    /// Loads the model of one folder once per process: every embedder of that folder (one per `trove serve`
    /// request, say) shares the encoder and its mapped weights.
    private final class Loader: Sendable {
        let folder: String
        let loaded = Mutex<MiniLM?>(nil)
        private init(folder: String) { self.folder = folder }

        private static let loaders = Mutex<[String: Loader]>([:])

        /// The process's loader for `folder`.
        static func shared(folder: String) -> Loader {
            loaders.withLock { loaders in
                if let loader = loaders[folder] { return loader }
                let loader = Loader(folder: folder)
                loaders[folder] = loader
                return loader
            }
        }

        func load() throws -> MiniLM {
            try loaded.withLock { model in
                if let model { return model }
                let fresh = try MiniLM(folder: folder)
                // The weights cache hashes the file once when it is built, so this check is free on later loads.
                if let sha256 = fresh.modelSHA256, "sha256:" + sha256 != BuiltinEmbedder.digest {
                    throw MiniLMError(
                        .badFile,
                        "\(folder)/model.safetensors is not the all-MiniLM-L6-v2 release Trove runs (SHA-256 \(sha256)) "
                            + "— reinstall the model: \(ModelFolder.installCommand)")
                }
                model = fresh
                return fresh
            }
        }
    }
}
