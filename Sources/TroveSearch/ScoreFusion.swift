/// A convex combination of normalised scores (Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid
/// Retrieval", ACM TOIS 2023): unlike rank fusion it keeps how far apart candidates are, not only their order.
public struct ScoreFusion: Sendable, Equatable {
    /// How a list's scores are brought to one scale before they are combined.
    public enum Normalization: String, Sendable, Equatable, CaseIterable, Codable {
        /// `(s − min) / (max − min)` over the list: 1 for its best candidate, 0 for its worst.
        case minMax = "minmax"
        /// `(s − mean) / standard deviation` over the list.
        case zScore = "zscore"
    }

    /// How each list is normalised.
    package var normalization: Normalization
    /// One weight per input list (missing weights count as 1); the fused score is `Σ wᵢ·normᵢ / Σ wᵢ`.
    package var weights: [Double]
    /// How many of each list's best scores set its scale (min and max, or mean and deviation); nil: all of them.
    /// Candidates below that depth are scored on the same scale, so a document deep in one list gets its own
    /// (low) score instead of the list's floor, while the scale stays that of the head, whatever the depth.
    package var statisticsDepth: Int?

    /// Fusion with a normalisation, per-list weights and the depth the scale is taken from.
    package init(normalization: Normalization, weights: [Double] = [], statisticsDepth: Int? = nil) {
        self.normalization = normalization
        self.weights = weights
        self.statisticsDepth = statisticsDepth
    }

    /// The union of `lists` (each best first, ids unique within a list), best fused score first; ties by the best
    /// rank in any list, then ascending id. A candidate missing from a list counts as that list's worst, since it
    /// scored below everything the list holds.
    package func fuse(_ lists: [[ScoredRow]]) -> [FusedRow] {
        var rows: [Int64: FusedRow] = [:]
        var order: [Int64] = []
        var floors: [Double] = []
        let total = (0..<lists.count).reduce(0) { $0 + weight($1) }
        // Each weight's share of the total, applied before adding: `w·norm` first overflowed to ±∞ for a weight near
        // Double's largest (1e308, a valid `--keyword-weight`), and the reply then could not be encoded as JSON.
        let shares = (0..<lists.count).map { total > 0 ? weight($0) / total : 0 }
        for (list, scored) in lists.enumerated() {
            let normalized = normalize(scored.map { Double($0.score) })
            floors.append(normalized.min() ?? 0)
            for (offset, row) in scored.enumerated() {
                if rows[row.id] == nil {
                    rows[row.id] = FusedRow(id: row.id, score: 0, ranks: Array(repeating: nil, count: lists.count))
                    order.append(row.id)
                }
                // A repeated id keeps its first (best) entry in that list.
                if rows[row.id]!.ranks[list] == nil {
                    rows[row.id]!.ranks[list] = offset + 1
                    rows[row.id]!.score += shares[list] * normalized[offset]
                }
            }
        }
        var fused = order.map { id -> FusedRow in
            var row = rows[id]!
            for list in lists.indices where row.ranks[list] == nil { row.score += shares[list] * floors[list] }
            return row
        }
        fused.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.bestRank != b.bestRank { return a.bestRank < b.bestRank }
            return a.id < b.id
        }
        return fused
    }

    /// `scores` on the common scale; a list whose scores are all equal maps to all 1 (min-max) or all 0 (z-score).
    /// The scale comes from the first `statisticsDepth` scores.
    func normalize(_ scores: [Double]) -> [Double] {
        let head = statisticsDepth.map { Array(scores.prefix(Swift.max(1, $0))) } ?? scores
        guard let low = head.min(), let high = head.max() else { return [] }
        switch normalization {
        case .minMax:
            return scores.map { high > low ? ($0 - low) / (high - low) : 1 }
        case .zScore:
            let mean = head.reduce(0, +) / Double(head.count)
            let variance = head.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(head.count)
            let deviation = variance.squareRoot()
            return scores.map { deviation > 0 ? ($0 - mean) / deviation : 0 }
        }
    }

    private func weight(_ list: Int) -> Double {
        list < weights.count ? weights[list] : 1
    }
}
