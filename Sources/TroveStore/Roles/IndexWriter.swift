/// Writing an index: the manifest, documents with their chunks and vectors, the writer lock, and re-embedding in
/// place. `Indexer` takes this role; like GRDB's `DatabaseWriter`, a writer reads too.
package protocol IndexWriter: IndexReader {
    // MARK: Manifest and transactions

    /// Replaces every manifest key with those of `manifest` (atomically); the generation survives.
    func writeManifest(_ manifest: IndexManifest) throws
    /// Runs `body` in one transaction, rolled back when it throws; a nested call is a savepoint.
    @discardableResult func inTransaction<T>(_ body: () throws -> T) throws -> T

    // MARK: Roots and documents

    /// The id of the root folder `path` (absolute), inserting it when new.
    func rootID(forPath path: String) throws -> Int64
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
    /// Records how the indexing pass over the folder at `root` ended, replacing the record before.
    func recordRun(root: String, _ record: RunRecord) throws

    // MARK: Documents that are not text

    /// A stored extracted document of `format` with this content hash, with its chunks and vectors, for a moved or
    /// copied file to reuse without extraction or embedding; nil when none.
    func reusableExtraction(contentHash: String, format: String) throws -> ReusableExtraction?
    /// The remembered failure of content with this hash under `extractor`; nil when none.
    func extractionFailure(contentHash: String, extractor: String) throws -> StoredExtractionFailure?
    /// Remembers that content with this hash failed under `extractor` (replacing an older record).
    func recordExtractionFailure(contentHash: String, extractor: String, failure: StoredExtractionFailure) throws

    // MARK: Writers between processes

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
}

extension IndexWriter {
    /// Takes the whole index's writer lock (a re-embed, or a store with one writer anyway).
    package func lockForWriting() throws -> WriterLock { try lockForWriting(roots: []) }
}
