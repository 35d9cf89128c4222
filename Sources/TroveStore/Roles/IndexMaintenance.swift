/// Keeping an index healthy: statistics, checks, compaction, and what follows an indexing run (a WAL checkpoint, an
/// approximate-nearest-neighbour index). What `status`, `doctor` and `vacuum` need.
package protocol IndexMaintenance: IndexReader {
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
}
