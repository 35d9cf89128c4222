/// The SQLite file behind the store protocol: it hands search a snapshot of its matrix (the flat vector cache).
extension IndexStore: IndexBackend, VectorSnapshotStore {
    /// The file path.
    public var location: String { path }

    /// Large runs leave a large WAL; fold it into the file while nobody else is likely to be writing.
    public func afterIndexing(chunksEmbedded: Int) throws {
        if chunksEmbedded > 10_000 { try checkpoint() }
    }
}
