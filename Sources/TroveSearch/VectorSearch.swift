/// A snapshot of vectors to rank. CONTRACT STUB: the search helper completes the module.
public struct VectorMatrix: Sendable {
    public let dimension: Int
    public let rowIDs: [Int64]
    /// Row-major, `rowIDs.count × dimension`, rows unit length.
    public let values: [Float]

    public init(dimension: Int, rowIDs: [Int64], values: [Float]) {
        precondition(values.count == rowIDs.count * dimension, "matrix shape")
        self.dimension = dimension
        self.rowIDs = rowIDs
        self.values = values
    }

    public var count: Int { rowIDs.count }
}

/// One ranked row.
public struct ScoredRow: Sendable, Equatable {
    public var id: Int64
    public var score: Float

    public init(id: Int64, score: Float) {
        self.id = id
        self.score = score
    }
}

/// Exact cosine ranking over a `VectorMatrix` with BLAS.
public struct VectorSearcher: Sendable {
    public let matrix: VectorMatrix

    public init(matrix: VectorMatrix) { self.matrix = matrix }

    /// The best `k` rows for a unit-length query, best first, ties by ascending id; rows below `minScore` left out.
    public func search(query: [Float], k: Int, minScore: Float = -.infinity) -> [ScoredRow] {
        fatalError("unimplemented")
    }
}

/// Small vector helpers.
public enum VectorMath {
    /// `v / ‖v‖`; a zero vector stays zero.
    public static func normalized(_ v: [Float]) -> [Float] { fatalError("unimplemented") }
}
