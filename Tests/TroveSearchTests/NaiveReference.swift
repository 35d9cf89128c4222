import TroveSearch

/// The obviously-correct ranking the searcher must match: score every row, sort everything.
enum Naive {
    /// Each row's dot product with `query`, accumulated in Double.
    static func scores(_ matrix: VectorMatrix, _ query: [Float]) -> [Float] {
        let d = matrix.dimension
        return (0..<matrix.count).map { row in
            var sum = 0.0
            for j in 0..<d { sum += Double(matrix.values[row * d + j]) * Double(query[j]) }
            return Float(sum)
        }
    }

    /// Full sort by score descending then id ascending, after dropping NaN, `< minScore` and disallowed rows.
    static func topK(
        _ matrix: VectorMatrix, _ query: [Float], k: Int, minScore: Float = -.infinity, allowed: [Bool]? = nil
    ) -> [ScoredRow] {
        let all = scores(matrix, query).enumerated().compactMap { row, score -> ScoredRow? in
            guard score >= minScore, allowed?[row] ?? true else { return nil }
            return ScoredRow(id: matrix.rowIDs[row], score: score)
        }
        let sorted = all.sorted { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
        return Array(sorted.prefix(max(0, k)))
    }
}
