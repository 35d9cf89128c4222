/// How hybrid search combines the vector and keyword rankings.
public enum FusionMethod: String, Sendable, CaseIterable, Codable {
    /// Reciprocal Rank Fusion: by rank alone, `Σ wᵢ / (c + rankᵢ)`.
    case rrf
    /// A convex combination of the normalised scores, `(normᵥ + w·normₖ) / (1 + w)`.
    case convex
}
