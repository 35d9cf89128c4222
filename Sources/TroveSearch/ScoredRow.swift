/// One ranked row.
package struct ScoredRow: Sendable, Equatable {
    /// The row's id from `VectorMatrix.rowIDs`.
    package var id: Int64
    /// Dot product of the row and the query (cosine similarity for unit vectors).
    package var score: Float

    /// A row id with its score.
    package init(id: Int64, score: Float) {
        self.id = id
        self.score = score
    }

    /// Whether `self` ranks before `other`: higher score first, then ascending id.
    @inline(__always)
    package func ranks(before other: ScoredRow) -> Bool {
        score > other.score || (score == other.score && id < other.id)
    }
}
