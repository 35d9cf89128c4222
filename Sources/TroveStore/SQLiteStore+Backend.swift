/// The SQLite file behind the store protocol: it hands search a snapshot of its matrix (the flat vector cache).
extension SQLiteStore: IndexBackend, VectorSnapshotStore {
    /// The file path.
    package var location: String { path }

    /// Folds the run's WAL into the file, so the file alone holds the index (a `cp` of it is a whole copy): a large
    /// run's WAL is also truncated; a small one is copied without waiting for readers (PASSIVE), which a serving
    /// `trove serve` would otherwise stall. The process exits without closing its connection, so SQLite's own
    /// checkpoint on close never ran: after a run of Corpora/ the file held 8 KB and the WAL 1.5 MB.
    package func afterIndexing(chunksEmbedded: Int) throws {
        if chunksEmbedded > 10_000 {
            try checkpoint()
        } else {
            _ = try database.scalarInt("PRAGMA wal_checkpoint(PASSIVE)")
        }
    }

    /// None: SQLite's vectors are scanned by BLAS, whole.
    package func annIndexState() throws -> ANNIndexState? { nil }
}
