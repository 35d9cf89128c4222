/// The index file: roots, documents, chunks, vectors, FTS. CONTRACT STUB: the store helper completes the module.
/// Not thread-safe: one owner uses it synchronously.
public final class IndexStore {
    /// The file path of the SQLite database.
    public let path: String

    /// Opens (and, when `createIfMissing`, creates with mode 0600) the index, migrating its schema.
    /// Throws `StoreError` with code `.missingIndex` when the file is absent and `createIfMissing` is false.
    public init(path: String, createIfMissing: Bool) throws { fatalError("unimplemented") }

    /// The fingerprint, or nil for a new index.
    public func manifest() throws -> IndexManifest? { fatalError("unimplemented") }
    public func writeManifest(_ manifest: IndexManifest) throws { fatalError("unimplemented") }

    /// Runs `body` in one `BEGIN IMMEDIATE … COMMIT` transaction; rolls back when it throws.
    public func inTransaction<T>(_ body: () throws -> T) throws -> T { fatalError("unimplemented") }

    /// The id of the root folder `path` (absolute), inserting it when new.
    public func rootID(forPath path: String) throws -> Int64 { fatalError("unimplemented") }
    public func roots() throws -> [IndexRoot] { fatalError("unimplemented") }
    /// The documents stored under a root, keyed by their root-relative path.
    public func documents(inRoot rootID: Int64) throws -> [String: StoredDocument] { fatalError("unimplemented") }
    /// Replaces the document at (rootID, path) with these chunks and vectors (call inside `inTransaction`).
    @discardableResult
    public func replaceDocument(_ document: NewDocument, chunks: [NewChunk]) throws -> Int64 {
        fatalError("unimplemented")
    }
    /// Removes a document with its chunks, vectors and keyword rows.
    public func deleteDocument(id: Int64) throws { fatalError("unimplemented") }
    /// Every vector as one contiguous row-major matrix, validated (length, dimension, finite).
    public func loadVectors() throws -> StoredVectors { fatalError("unimplemented") }
    /// The chunks with these ids, with their document path and root.
    public func chunks(ids: [Int64]) throws -> [Int64: StoredChunk] { fatalError("unimplemented") }
    public func statistics() throws -> IndexStatistics { fatalError("unimplemented") }
}

/// The index's fingerprint: what produced its vectors.
public struct IndexManifest: Sendable, Equatable {
    /// `ollama` today; `builtin` later.
    public var embedder: String
    public var model: String
    /// Ollama's digest of the model, when known.
    public var modelDigest: String?
    public var dimension: Int
    public var chunkerVersion: Int
    /// A stable string of the chunker's parameters, e.g. `maxTokens=400,overlap=0.12`.
    public var chunkerParameters: String
    public var queryPrefix: String
    public var documentPrefix: String

    public init(
        embedder: String, model: String, modelDigest: String?, dimension: Int, chunkerVersion: Int,
        chunkerParameters: String, queryPrefix: String, documentPrefix: String
    ) {
        self.embedder = embedder
        self.model = model
        self.modelDigest = modelDigest
        self.dimension = dimension
        self.chunkerVersion = chunkerVersion
        self.chunkerParameters = chunkerParameters
        self.queryPrefix = queryPrefix
        self.documentPrefix = documentPrefix
    }
}

public struct IndexRoot: Sendable, Equatable {
    public var id: Int64
    public var path: String
    public var documentCount: Int
}

public struct StoredDocument: Sendable, Equatable {
    public var id: Int64
    public var size: Int64
    public var modifiedNanoseconds: Int64
    public var contentHash: String
}

public struct NewDocument: Sendable, Equatable {
    public var rootID: Int64
    public var path: String
    public var size: Int64
    public var modifiedNanoseconds: Int64
    public var contentHash: String

    public init(rootID: Int64, path: String, size: Int64, modifiedNanoseconds: Int64, contentHash: String) {
        self.rootID = rootID
        self.path = path
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.contentHash = contentHash
    }
}

public struct NewChunk: Sendable, Equatable {
    public var ordinal: Int
    public var startLine: Int
    public var endLine: Int
    /// Heading path joined with ` › `.
    public var heading: String
    public var text: String
    public var contentHash: String
    /// Unit-length vector of the index's dimension.
    public var vector: [Float]

    public init(
        ordinal: Int, startLine: Int, endLine: Int, heading: String, text: String, contentHash: String, vector: [Float]
    ) {
        self.ordinal = ordinal
        self.startLine = startLine
        self.endLine = endLine
        self.heading = heading
        self.text = text
        self.contentHash = contentHash
        self.vector = vector
    }
}

public struct StoredVectors: Sendable {
    public var dimension: Int
    public var chunkIDs: [Int64]
    /// Row-major, `chunkIDs.count × dimension`.
    public var values: [Float]
}

public struct StoredChunk: Sendable, Equatable {
    public var id: Int64
    public var rootPath: String
    public var path: String
    public var startLine: Int
    public var endLine: Int
    public var heading: String
    public var text: String
}

public struct IndexStatistics: Sendable, Equatable {
    public var documents: Int
    public var chunks: Int
    public var vectors: Int
    /// Bytes of the database file plus its WAL.
    public var bytesOnDisk: Int64
}

/// Every failure of the store. CONTRACT STUB.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case missingIndex, cannotOpen, sqlite(Int32), corruptVector, schemaTooNew
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension IndexStore {
    /// Records a new size and mtime for a document whose content did not change (a `touch`, a checkout).
    public func updateDocumentStat(id: Int64, size: Int64, modifiedNanoseconds: Int64) throws {
        fatalError("unimplemented")
    }
}

extension IndexStore {
    /// Whether the linked SQLite has FTS5, which keyword search needs (for `trove doctor`).
    public static func sqliteHasFTS5() -> Bool { fatalError("unimplemented") }
    /// The linked SQLite's version, e.g. `3.40.1`.
    public static var sqliteVersion: String { fatalError("unimplemented") }
}
