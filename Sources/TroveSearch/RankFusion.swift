/// One candidate after Reciprocal Rank Fusion: its fused score and where each input list ranked it.
package struct FusedRow: Sendable, Equatable {
    /// The candidate's id (a chunk id in Trove).
    package var id: Int64
    /// `Σ wᵢ / (c + rankᵢ)` over the lists that hold the id, divided by its maximum `Σ wᵢ / (c + 1)`:
    /// 1 means first in every list, and the scale does not change with the constant or the number of lists.
    package var score: Double
    /// The 1-based rank in each input list, nil where the list does not hold the id.
    package var ranks: [Int?]

    /// A fused row from its parts.
    package init(id: Int64, score: Double, ranks: [Int?]) {
        self.id = id
        self.score = score
        self.ranks = ranks
    }

    /// The best (smallest) rank in any list.
    package var bestRank: Int { ranks.compactMap { $0 }.min() ?? .max }
}

/// Reciprocal Rank Fusion (Cormack, Clarke & Büttcher 2009): merges ranked lists by rank alone, so scores of
/// different kinds (cosine similarity, BM25) never need a common scale.
package struct RankFusion: Sendable, Equatable {
    /// The constant `c` in `1 / (c + rank)`: larger flattens the advantage of the top ranks.
    package var constant: Double
    /// One weight per input list (missing weights count as 1).
    package var weights: [Double]

    /// Fusion with constant `c` and per-list weights.
    package init(constant: Double, weights: [Double] = []) {
        precondition(constant >= 0, "fusion constant must not be negative")
        self.constant = constant
        self.weights = weights
    }

    /// The union of `lists` (each best first, ids unique within a list), best fused score first; ties by the best
    /// rank in any list, then ascending id.
    package func fuse(_ lists: [[Int64]]) -> [FusedRow] {
        var rows: [Int64: FusedRow] = [:]
        var order: [Int64] = []
        for (list, ids) in lists.enumerated() {
            let weight = weight(list)
            for (offset, id) in ids.enumerated() {
                let contribution = weight / (constant + Double(offset + 1))
                if rows[id] == nil {
                    rows[id] = FusedRow(id: id, score: 0, ranks: Array(repeating: nil, count: lists.count))
                    order.append(id)
                }
                // A repeated id keeps its first (best) rank in that list.
                if rows[id]!.ranks[list] == nil {
                    rows[id]!.ranks[list] = offset + 1
                    rows[id]!.score += contribution
                }
            }
        }
        let maximum = (0..<lists.count).reduce(0) { $0 + weight($1) / (constant + 1) }
        var fused = order.map { id -> FusedRow in
            var row = rows[id]!
            if maximum > 0 { row.score /= maximum }
            return row
        }
        fused.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.bestRank != b.bestRank { return a.bestRank < b.bestRank }
            return a.id < b.id
        }
        return fused
    }

    private func weight(_ list: Int) -> Double {
        list < weights.count ? weights[list] : 1
    }
}
