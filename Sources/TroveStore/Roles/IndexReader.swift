/// Reading an index: its manifest, folders, documents' text, the search primitives and the versions that say when
/// a snapshot is stale. What search, status and `get` need; `Retriever` takes only this role. Not thread-safe: one
/// owner uses a store synchronously.
package protocol IndexReader: AnyObject {
    /// Where the index lives, as shown in messages: a file path, or a URL without its password.
    var location: String { get }

    // MARK: Manifest and documents

    /// The fingerprint, or nil for a new index.
    func manifest() throws -> IndexManifest?
    /// Every root with its document count, ordered by path.
    func roots() throws -> [IndexRoot]
    /// The document `path` of the root `rootPath` with its chunks; nil when absent.
    func documentText(rootPath: String, path: String) throws -> StoredDocumentText?
    /// When a document was last written (seconds since 1970); nil when the index holds none.
    func lastIndexedAt() throws -> Int64?
    /// How the last indexing pass over each folder ended, by absolute path (folders never indexed since runs were
    /// recorded are absent).
    func runRecords() throws -> [String: RunRecord]

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
    /// The stored rendition structure (`StoredExtraction.structure`) of those of these documents read as `format`,
    /// by document id: where hits in an HTML page find their heading's `#id`.
    func structures(ofDocuments documentIDs: [Int64], format: String) throws -> [Int64: String]
    /// Whether the index holds any vector.
    func hasVectors() throws -> Bool

    // MARK: Consistency between processes

    /// Changes whenever any process commits to the index; cheap (no table scan).
    func dataVersion() throws -> Int64
    /// Changes whenever the vectors change (read only when `dataVersion()` moved).
    func contentVersion() throws -> [Int64]
    /// How many times every vector was replaced at once (each finished re-embed adds one).
    func vectorGeneration() throws -> Int64
}
