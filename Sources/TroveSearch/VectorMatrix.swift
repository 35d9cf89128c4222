/// A snapshot of vectors to rank: row-major `Float`s and the id of each row.
public struct VectorMatrix: Sendable {
    /// Floats per row.
    public let dimension: Int
    /// The id of each row, in row order; ties in ranking are broken by ascending id.
    public let rowIDs: [Int64]
    /// Row-major, `rowIDs.count × dimension`, rows unit length.
    public let values: [Float]

    /// Wraps contiguous row-major values; traps unless `values.count == rowIDs.count * dimension`.
    public init(dimension: Int, rowIDs: [Int64], values: [Float]) {
        precondition(dimension >= 0, "matrix dimension must not be negative")
        precondition(values.count == rowIDs.count * dimension, "matrix shape")
        self.dimension = dimension
        self.rowIDs = rowIDs
        self.values = values
    }

    /// Number of rows.
    public var count: Int { rowIDs.count }

    /// A mask allowing exactly the rows whose id is in `ids`; ids not in the matrix are ignored.
    public func mask(allowingIDs ids: some Sequence<Int64>) -> RowMask {
        // One pass over the rows against a set, so the cost is O(N + |ids|) whatever order the ids come in.
        let wanted = Set(ids)
        var mask = RowMask(count: count)
        for (row, id) in rowIDs.enumerated() where wanted.contains(id) {
            mask[row] = true
        }
        return mask
    }
}
