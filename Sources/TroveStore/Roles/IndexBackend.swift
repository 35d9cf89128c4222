/// What TroveKit needs of an index, whichever engine holds it: a SQLite file (`SQLiteStore`) or a schema in a
/// PostgreSQL database (`PostgresStore`). TroveKit sees only these protocols, so the two stores share every line
/// above them. Not thread-safe: one owner uses a store synchronously.
///
/// How vectors are ranked is the one place the engines differ: a store either hands out a snapshot of its whole
/// matrix for TroveSearch's BLAS scan (`VectorSnapshotStore`, SQLite) or ranks in its own query engine with the
/// filter applied before top-k (`VectorQueryStore`, PostgreSQL + pgvector).
///
/// The requirements are split by role, as GRDB separates `DatabaseReader` and `DatabaseWriter`: `IndexReader`,
/// `IndexWriter`, `IndexMaintenance` and `ChatHistoryStore`. A caller takes the role it needs (`Indexer` a writer,
/// `Retriever` a reader); the facade, which opens the store, holds all of them.
package protocol IndexBackend: IndexWriter, IndexMaintenance, ChatHistoryStore {}
