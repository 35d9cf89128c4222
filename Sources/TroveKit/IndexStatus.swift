import TroveIngest
import TroveStore

/// What an index holds: folders, counts, model, and when it was last indexed.
public struct IndexStatus: Sendable, Equatable {
    /// One indexed folder.
    public struct Folder: Sendable, Equatable {
        public var path: String
        public var documents: Int
    }

    public var location: String
    /// The database file plus its write-ahead log.
    public var bytesOnDisk: Int64
    /// Who embeds; nil before the first index run.
    public var provider: Provider?
    public var model: String?
    public var modelDigest: String?
    public var dimension: Int?
    public var chunkerVersion: Int?
    public var chunkerParameters: String?
    public var documents: Int
    public var chunks: Int
    public var folders: [Folder]
    /// When a document was last written (seconds since 1970); nil when none is.
    public var lastIndexed: Int64?
    /// The approximate nearest-neighbour index (PostgreSQL's HNSW); nil for a store that always scans (SQLite).
    public var annIndex: ANNIndex? = nil

    /// The store's approximate nearest-neighbour index: what its policy wants and what exists.
    public typealias ANNIndex = ANNIndexState
}

/// A document in the index.
public struct IndexedDocument: Sendable, Equatable {
    /// The indexed folder it belongs to.
    public var rootPath: String
    /// Its path relative to `rootPath`.
    public var relativePath: String
    /// Its modification time when indexed, in nanoseconds since 1970.
    public var modifiedNanoseconds: Int64

    /// The document's absolute path.
    public var path: String { rootPath.hasSuffix("/") ? rootPath + relativePath : rootPath + "/" + relativePath }
}

/// What `forget` removed.
public struct ForgetResult: Sendable, Equatable {
    /// The folder, as an absolute path.
    public var folder: String
    public var documents: Int
    public var chunks: Int
}

/// The index file's size around a `vacuum`.
public struct VacuumResult: Sendable, Equatable {
    public var bytesBefore: Int64
    public var bytesAfter: Int64
}

/// Sizes as Trove prints them (binary units, one decimal), under TroveKit's name.
public typealias ByteSize = TroveIngest.ByteSize
