/// How passages are ranked.
public enum SearchMode: String, Sendable, CaseIterable, Codable {
    /// Vector and keyword rankings fused (`SearchRequest.fusion`).
    case hybrid
    /// Cosine similarity of embeddings only.
    case vector
    /// SQLite FTS5 BM25 only; needs no embedding model.
    case keyword
}
