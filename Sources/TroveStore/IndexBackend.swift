/// What TroveKit needs of an index, whichever engine holds it: a SQLite file (`IndexStore`) or a schema in a
/// PostgreSQL database (`PostgresStore`). The indexer, the retriever and the facade see only this protocol, so the
/// two stores share every line above it. Not thread-safe: one owner uses a store synchronously.
///
/// How vectors are ranked is the one place the engines differ: a store either hands out a snapshot of its whole
/// matrix for TroveSearch's BLAS scan (`VectorSnapshotStore`, SQLite) or ranks in its own query engine with the
/// filter applied before top-k (`VectorQueryStore`, PostgreSQL + pgvector).
public protocol IndexBackend: AnyObject {
    /// Where the index lives, as shown in messages: a file path, or a URL without its password.
    var location: String { get }

    // MARK: Manifest and transactions

    /// The fingerprint, or nil for a new index.
    func manifest() throws -> IndexManifest?
    /// Replaces every manifest key with those of `manifest` (atomically); the generation survives.
    func writeManifest(_ manifest: IndexManifest) throws
    /// Runs `body` in one transaction, rolled back when it throws; a nested call is a savepoint.
    @discardableResult func inTransaction<T>(_ body: () throws -> T) throws -> T

    // MARK: Roots and documents

    /// The id of the root folder `path` (absolute), inserting it when new.
    func rootID(forPath path: String) throws -> Int64
    /// Every root with its document count, ordered by path.
    func roots() throws -> [IndexRoot]
    /// The documents stored under a root, keyed by their root-relative path.
    func documents(inRoot rootID: Int64) throws -> [String: StoredDocument]
    /// Replaces the document at (rootID, path) with these chunks and vectors, all or nothing (call inside
    /// `inTransaction`); returns the new document id.
    @discardableResult func replaceDocument(_ document: NewDocument, chunks: [NewChunk]) throws -> Int64
    /// Removes a document with its chunks, vectors and keyword rows.
    func deleteDocument(id: Int64) throws
    /// Records a new size and mtime for a document whose content did not change.
    func updateDocumentStat(id: Int64, size: Int64, modifiedNanoseconds: Int64) throws
    /// A stored vector for each of `hashes` that some chunk with that content hash has.
    func vectors(forContentHashes hashes: [String]) throws -> [String: [Float]]
    /// Removes the root at `path` with everything under it; nil when the index has no such root.
    func forgetRoot(path: String) throws -> (documents: Int, chunks: Int)?
    /// The document `path` of the root `rootPath` with its chunks; nil when absent.
    func documentText(rootPath: String, path: String) throws -> StoredDocumentText?
    /// When a document was last written (seconds since 1970); nil when the index holds none.
    func lastIndexedAt() throws -> Int64?

    // MARK: Search

    /// Every document with its root and mtime, for evaluating search filters.
    func searchableDocuments() throws -> [SearchableDocument]
    /// The ids of every chunk of these documents, ascending.
    func chunkIDs(inDocuments documentIDs: [Int64]) throws -> [Int64]
    /// The document id of each of these chunks; unknown chunk ids are absent.
    func documentIDs(ofChunks chunkIDs: [Int64]) throws -> [Int64: Int64]
    /// The `limit` best keyword matches, best first, only among `allowedChunkIDs` when given (inside the query).
    func keywordSearch(_ query: String, limit: Int, allowedChunkIDs: [Int64]?, bm25: BM25) throws -> [KeywordHit]
    /// The chunks with these ids, with their document path and root; unknown ids are absent.
    func chunks(ids: [Int64]) throws -> [Int64: StoredChunk]
    /// Whether the index holds any vector.
    func hasVectors() throws -> Bool

    // MARK: Consistency between processes

    /// Changes whenever any process commits to the index; cheap (no table scan).
    func dataVersion() throws -> Int64
    /// Changes whenever the vectors change (read only when `dataVersion()` moved).
    func contentVersion() throws -> [Int64]
    /// How many times every vector was replaced at once (each finished re-embed adds one).
    func vectorGeneration() throws -> Int64
    /// Throws `.concurrentChange` when the index was re-embedded since a writer read `expected`.
    func checkGeneration(_ expected: Int64) throws
    /// Keeps other writers off `roots` (absolute paths) until released; empty `roots` means the whole index (a
    /// re-embed). Throws `.locked` naming the holder when another writer has it.
    func lockForWriting(roots: [String]) throws -> WriterLock

    // MARK: Re-embedding in place

    /// Creates the staging area for a re-embed (kept across runs); `fresh` empties it first.
    func beginReembedding(fresh: Bool) throws
    /// A value remembered for an unfinished re-embed, nil when none.
    func reembedState(_ key: String) throws -> String?
    /// Remembers a value for the re-embed in progress.
    func setReembedState(_ key: String, _ value: String) throws
    /// Up to `limit` chunks with no staged vector yet, in id order, after `afterID`.
    func chunksToReembed(afterID: Int64, limit: Int) throws -> [ChunkForEmbedding]
    /// Stages new vectors (call inside `inTransaction`).
    func stageVectors(_ vectors: [(chunkID: Int64, vector: [Float])]) throws
    /// Swaps the staged vectors in, writes `manifest` and adds one to the generation, in one transaction.
    func finishReembedding(manifest: IndexManifest) throws

    // MARK: Maintenance

    /// Counts and bytes on disk.
    func statistics() throws -> IndexStatistics
    /// `ok` when healthy, else one problem per line.
    func integrityCheck() throws -> String
    /// Compacts storage after large deletions.
    func vacuum() throws
    /// Folds write-ahead state into the main storage after a large run (a no-op where the engine does it).
    func checkpoint() throws
    /// Called after an indexing run that embedded `chunksEmbedded` chunks: SQLite folds a large WAL into the file,
    /// PostgreSQL builds (or drops) its HNSW index as its size and policy say.
    func afterIndexing(chunksEmbedded: Int) throws
    /// The approximate nearest-neighbour index and what its policy wants; nil for a store that always scans.
    func annIndexState() throws -> ANNIndexState?
    /// Every document and chunk with its vector bytes, in (root, path, ordinal) order, without ids.
    func contentRows() throws -> [ContentRow]
    /// Documents whose chunks are not exactly ordinals 0..<n each with a vector; empty when consistent.
    func halfWrittenDocuments() throws -> [String]

    // MARK: Conversations

    /// The session called `name`, created (with `chatModel`) when it does not exist yet.
    func chatSession(named name: String, chatModel: String) throws -> ChatSessionRecord
    /// The session's messages, oldest first.
    func chatMessages(sessionID: Int64) throws -> [ChatMessageRecord]
    /// Replaces the session's stored history with `messages`, in one transaction.
    func replaceChatMessages(sessionID: Int64, with messages: [ChatMessageRecord]) throws
    /// Appends turns to the session, in one transaction.
    func appendChatMessages(sessionID: Int64, _ messages: [ChatMessageRecord]) throws
    /// Records the chat model a session now uses.
    func setChatModel(sessionID: Int64, _ model: String) throws
}

extension IndexBackend {
    /// Takes the whole index's writer lock (a re-embed, or a store with one writer anyway).
    public func lockForWriting() throws -> WriterLock { try lockForWriting(roots: []) }
}

/// A store that hands search a snapshot of its whole matrix, ranked by BLAS in TroveSearch (SQLite).
public protocol VectorSnapshotStore: IndexBackend {
    /// Every vector as one contiguous row-major matrix, validated; from a cache when current.
    func loadVectorsCached() throws -> StoredVectors
}

/// A store that ranks vectors in its own query engine (PostgreSQL + pgvector), and evaluates search filters there.
public protocol VectorQueryStore: IndexBackend {
    /// The `limit` chunks most similar to `query` (unit length) by cosine, best first (ties by chunk id), scoring
    /// at least `minScore`, only among `allowedChunkIDs` when given: the restriction is part of the query, so it
    /// applies before top-k.
    func nearestChunks(to query: [Float], limit: Int, minScore: Float, allowedChunkIDs: [Int64]?) throws
        -> [VectorHit]
    /// The cosine similarity of each of these chunks with `query`; chunks without a vector are absent.
    func similarities(ofChunks chunkIDs: [Int64], to query: [Float]) throws -> [Int64: Float]

    // Filters evaluated in the store's own queries: no list of every allowed chunk is built or sent.

    /// `nearestChunks` among the chunks of the documents meeting `conditions`, which are part of the query.
    func nearestChunks(to query: [Float], limit: Int, minScore: Float, matching conditions: DocumentConditions)
        throws -> [VectorHit]
    /// `keywordSearch` among the chunks of the documents meeting `conditions`, which are part of the query.
    func keywordSearch(_ query: String, limit: Int, matching conditions: DocumentConditions, bm25: BM25) throws
        -> [KeywordHit]
    /// The documents meeting `conditions`, in id order, at most `limit` when given.
    func searchableDocuments(matching conditions: DocumentConditions, limit: Int?) throws -> [SearchableDocument]
}

/// A vector match: the chunk and its cosine similarity with the query.
public struct VectorHit: Sendable, Equatable {
    /// Chunk id.
    public var chunkID: Int64
    /// Cosine similarity, -1…1, higher is better.
    public var score: Float

    /// A hit from its parts.
    public init(chunkID: Int64, score: Float) {
        self.chunkID = chunkID
        self.score = score
    }
}
