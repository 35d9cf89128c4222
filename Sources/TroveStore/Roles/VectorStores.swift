/// A store that hands search a snapshot of its whole matrix, ranked by BLAS in TroveSearch (SQLite).
package protocol VectorSnapshotStore: IndexReader {
    /// Every vector as one contiguous row-major matrix, validated; from a cache when current.
    func loadVectorsCached() throws -> StoredVectors
}

/// A store that ranks vectors in its own query engine (PostgreSQL + pgvector), and evaluates search filters there.
package protocol VectorQueryStore: IndexReader {
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
package struct VectorHit: Sendable, Equatable {
    /// Chunk id.
    package var chunkID: Int64
    /// Cosine similarity, -1…1, higher is better.
    package var score: Float

    /// A hit from its parts.
    package init(chunkID: Int64, score: Float) {
        self.chunkID = chunkID
        self.score = score
    }
}
