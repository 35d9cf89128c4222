/// The index's fingerprint: what produced its vectors.
package struct IndexManifest: Sendable, Equatable {
    /// Who made the vectors (stored as its raw value under the `embedder` key).
    package var provider: Provider
    /// The embedding model's name, e.g. `nomic-embed-text`.
    package var model: String
    /// Ollama's digest of the model, when known.
    package var modelDigest: String?
    /// Floats per vector.
    package var dimension: Int
    /// Bumped whenever the chunker's output changes for the same input.
    package var chunkerVersion: Int
    /// A stable string of the chunker's parameters, e.g. `maxTokens=400,overlap=0.12`.
    package var chunkerParameters: String
    /// Text prepended to queries before embedding.
    package var queryPrefix: String
    /// Text prepended to chunks before embedding.
    package var documentPrefix: String
    /// The embedding of a fixed probe text, made with the index: another embedder whose probe vector agrees
    /// (cosine ≥ 0.999) makes comparable vectors. Nil in indexes made before it existed, until their next run.
    package var probeVector: [Float]?

    /// A manifest from its parts.
    package init(
        provider: Provider, model: String, modelDigest: String?, dimension: Int, chunkerVersion: Int,
        chunkerParameters: String, queryPrefix: String, documentPrefix: String, probeVector: [Float]? = nil
    ) {
        self.probeVector = probeVector
        self.provider = provider
        self.model = model
        self.modelDigest = modelDigest
        self.dimension = dimension
        self.chunkerVersion = chunkerVersion
        self.chunkerParameters = chunkerParameters
        self.queryPrefix = queryPrefix
        self.documentPrefix = documentPrefix
    }
}

/// A folder that was indexed, with how many documents it holds.
package struct IndexRoot: Sendable, Equatable {
    /// Row id, stable for the life of the index.
    package var id: Int64
    /// Absolute path of the folder.
    package var path: String
    /// Documents stored under it.
    package var documentCount: Int

    /// A root from its parts.
    package init(id: Int64, path: String, documentCount: Int) {
        self.id = id
        self.path = path
        self.documentCount = documentCount
    }
}

/// What the index remembers of a file, to decide whether it changed.
package struct StoredDocument: Sendable, Equatable {
    /// Row id; changes when the document is replaced.
    package var id: Int64
    /// Bytes on disk when indexed.
    package var size: Int64
    /// Modification time in nanoseconds since 1970 when indexed.
    package var modifiedNanoseconds: Int64
    /// Hash of the file's content when indexed.
    package var contentHash: String

    /// A stored document from its parts.
    package init(id: Int64, size: Int64, modifiedNanoseconds: Int64, contentHash: String) {
        self.id = id
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.contentHash = contentHash
    }
}

/// A file about to be stored.
package struct NewDocument: Sendable, Equatable {
    /// The root it belongs to (from `SQLiteStore.rootID(forPath:)`).
    package var rootID: Int64
    /// Path relative to the root.
    package var path: String
    /// Bytes on disk.
    package var size: Int64
    /// Modification time in nanoseconds since 1970.
    package var modifiedNanoseconds: Int64
    /// Hash of the file's content.
    package var contentHash: String
    /// How it was read, for a document that is not text; nil for a text file.
    package var extraction: StoredExtraction?

    /// A new document from its parts.
    package init(
        rootID: Int64, path: String, size: Int64, modifiedNanoseconds: Int64, contentHash: String,
        extraction: StoredExtraction? = nil
    ) {
        self.extraction = extraction
        self.rootID = rootID
        self.path = path
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.contentHash = contentHash
    }
}

/// A chunk of a new document with its embedding.
package struct NewChunk: Sendable, Equatable {
    /// Position within the document, from 0.
    package var ordinal: Int
    /// First line, 1-based.
    package var startLine: Int
    /// Last line, inclusive.
    package var endLine: Int
    /// Heading path joined with ` › `.
    package var heading: String
    /// The chunk's text.
    package var text: String
    /// Hash of `text`, to reuse embeddings of unchanged chunks.
    package var contentHash: String
    /// Unit-length vector of the index's dimension.
    package var vector: [Float]
    /// Pages (slides, …) it lies on, for a chunk of an extracted document.
    package var locator: StoredLocator?

    /// A new chunk from its parts.
    package init(
        ordinal: Int, startLine: Int, endLine: Int, heading: String, text: String, contentHash: String, vector: [Float],
        locator: StoredLocator? = nil
    ) {
        self.locator = locator
        self.ordinal = ordinal
        self.startLine = startLine
        self.endLine = endLine
        self.heading = heading
        self.text = text
        self.contentHash = contentHash
        self.vector = vector
    }
}

extension NewChunk {
    /// Throws `.corruptVector` for the first chunk whose vector is not `dimension` (when known) finite floats:
    /// checked before writing anything, so a bad vector never costs the caller a half-written batch.
    static func validate(_ chunks: [NewChunk], of path: String, dimension: Int?) throws {
        for chunk in chunks {
            if let dimension, chunk.vector.count != dimension {
                throw StoreError(
                    code: .corruptVector,
                    message: "chunk \(chunk.ordinal) of \(path) has a vector of \(chunk.vector.count) floats: "
                        + "expected \(dimension)")
            }
            if !chunk.vector.withUnsafeBufferPointer(VectorBlob.isFinite) {
                throw StoreError(
                    code: .corruptVector, message: "chunk \(chunk.ordinal) of \(path) has a non-finite value in its vector")
            }
        }
    }
}

/// Every vector of the index as one matrix, for search.
///
/// The floats are owned (read from SQLite) or borrowed from a read-only mapping of the flat cache file
/// (`mapping`), which a search scores in place instead of copying 4·N·d bytes into fresh memory.
package struct StoredVectors: Sendable {
    /// Floats per row.
    package var dimension: Int
    /// Row `i` of `values` belongs to `chunkIDs[i]`; ascending.
    package var chunkIDs: [Int64]
    private var storage: Storage

    private enum Storage: Sendable {
        case owned([Float])
        case mapped(VectorFileMapping)
    }

    /// A matrix from its parts (`values.count == chunkIDs.count * dimension`).
    package init(dimension: Int, chunkIDs: [Int64], values: [Float]) {
        self.dimension = dimension
        self.chunkIDs = chunkIDs
        self.storage = .owned(values)
    }

    /// A matrix whose floats are `mapping.values`.
    init(dimension: Int, chunkIDs: [Int64], mapping: VectorFileMapping) {
        self.dimension = dimension
        self.chunkIDs = chunkIDs
        self.storage = .mapped(mapping)
    }

    /// Row-major, `chunkIDs.count × dimension`. Reading it copies mapped floats into a new array; setting it
    /// makes the floats owned.
    package var values: [Float] {
        get {
            switch storage {
            case .owned(let values): values
            case .mapped(let mapping): Array(mapping.values)
            }
        }
        set { storage = .owned(newValue) }
    }

    /// The mapping the floats are borrowed from; nil when they are owned.
    package var mapping: VectorFileMapping? {
        if case .mapped(let mapping) = storage { return mapping }
        return nil
    }

    /// Calls `body` with the row-major floats, owned or mapped, without copying them.
    package func withUnsafeValues<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        switch storage {
        case .owned(let values): try values.withUnsafeBufferPointer(body)
        case .mapped(let mapping): try withExtendedLifetime(mapping) { try body(mapping.values) }
        }
    }
}

/// A chunk as shown in a search hit.
package struct StoredChunk: Sendable, Equatable {
    /// Chunk id.
    package var id: Int64
    /// Absolute path of the root folder.
    package var rootPath: String
    /// Document path relative to the root.
    package var path: String
    /// First line, 1-based.
    package var startLine: Int
    /// Last line, inclusive.
    package var endLine: Int
    /// Heading path joined with ` › `.
    package var heading: String
    /// The chunk's text.
    package var text: String
    /// Pages (slides, …) it lies on, for a chunk of an extracted document.
    package var locator: StoredLocator?

    /// A stored chunk from its parts.
    package init(
        id: Int64, rootPath: String, path: String, startLine: Int, endLine: Int, heading: String, text: String,
        locator: StoredLocator? = nil
    ) {
        self.locator = locator
        self.id = id
        self.rootPath = rootPath
        self.path = path
        self.startLine = startLine
        self.endLine = endLine
        self.heading = heading
        self.text = text
    }
}

/// Counts and size of an index.
package struct IndexStatistics: Sendable, Equatable {
    /// Stored documents.
    package var documents: Int
    /// Stored chunks.
    package var chunks: Int
    /// Stored vectors.
    package var vectors: Int
    /// Bytes of the database file plus its WAL.
    package var bytesOnDisk: Int64

    /// Statistics from their parts.
    package init(documents: Int, chunks: Int, vectors: Int, bytesOnDisk: Int64) {
        self.documents = documents
        self.chunks = chunks
        self.vectors = vectors
        self.bytesOnDisk = bytesOnDisk
    }
}

/// A keyword (FTS5) match: the chunk and its BM25 relevance, higher is better.
package struct KeywordHit: Sendable, Equatable {
    /// Chunk id.
    package var chunkID: Int64
    /// Negated FTS5 `bm25()`: positive, higher means more relevant.
    package var score: Double

    /// A hit from its parts.
    package init(chunkID: Int64, score: Double) {
        self.chunkID = chunkID
        self.score = score
    }
}

/// A chunk to re-embed: its id and the text the embedder saw (heading line and text, without the prefix).
package struct ChunkForEmbedding: Sendable, Equatable {
    /// Chunk id.
    package var id: Int64
    /// Heading path joined with ` › `, empty for none.
    package var heading: String
    /// The chunk's text.
    package var text: String

    /// A chunk from its parts.
    package init(id: Int64, heading: String, text: String) {
        self.id = id
        self.heading = heading
        self.text = text
    }
}

/// One chunk of the index with everything that defines it, for comparing two indexes' contents.
package struct ContentRow: Sendable, Equatable, Hashable {
    /// Root folder path.
    package var root: String
    /// Document path relative to the root.
    package var path: String
    /// The document's content hash.
    package var documentHash: String
    /// The chunk's ordinal, line range, heading, text, content hash; -1 and empty for a document without chunks.
    package var ordinal: Int
    package var startLine: Int
    package var endLine: Int
    package var heading: String
    package var text: String
    package var chunkHash: String
    /// The vector's bytes, empty when the chunk has none.
    package var vector: [UInt8]

    /// A row from its parts.
    package init(
        root: String, path: String, documentHash: String, ordinal: Int, startLine: Int, endLine: Int, heading: String,
        text: String, chunkHash: String, vector: [UInt8]
    ) {
        self.root = root
        self.path = path
        self.documentHash = documentHash
        self.ordinal = ordinal
        self.startLine = startLine
        self.endLine = endLine
        self.heading = heading
        self.text = text
        self.chunkHash = chunkHash
        self.vector = vector
    }
}

/// A store's approximate nearest-neighbour index (PostgreSQL's pgvector HNSW): what its policy wants and what exists.
public struct ANNIndexState: Sendable, Equatable {
    /// `auto`, `on` or `off` (`?hnsw=` of the URL).
    public var policy: String
    /// The vectors it would index.
    public var vectors: Int
    /// The vector count from which `auto` builds it.
    public var threshold: Int
    /// Whether the policy wants it now.
    public var wanted: Bool
    /// Whether it exists.
    public var built: Bool
    /// Roughly how long a build of `vectors` takes, in seconds, from the rate measured in
    /// BENCHMARKS.md#hnsw-build-rate.
    public var estimatedBuildSeconds: Int

    /// A state from its parts.
    public init(policy: String, vectors: Int, threshold: Int, wanted: Bool, built: Bool, estimatedBuildSeconds: Int) {
        self.policy = policy
        self.vectors = vectors
        self.threshold = threshold
        self.wanted = wanted
        self.built = built
        self.estimatedBuildSeconds = estimatedBuildSeconds
    }
}
