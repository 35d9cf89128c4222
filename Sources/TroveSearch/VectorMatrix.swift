/// A snapshot of vectors to rank: row-major `Float`s and the id of each row.
///
/// The floats are either owned (a `[Float]`) or borrowed from memory another object keeps alive, such as a
/// read-only mapping of the index's vector cache file, so a fresh process can score straight from the page cache
/// without copying the matrix. Scoring reads them through `withUnsafeValues`.
package struct VectorMatrix: Sendable {
    /// Floats per row.
    package let dimension: Int
    /// The id of each row, in row order; ties in ranking are broken by ascending id.
    package let rowIDs: [Int64]
    private let storage: Storage

    /// Where the floats live.
    private enum Storage: Sendable {
        case owned([Float])
        case borrowed(BorrowedFloats)
    }

    /// Wraps contiguous row-major values; traps unless `values.count == rowIDs.count * dimension`.
    package init(dimension: Int, rowIDs: [Int64], values: [Float]) {
        precondition(dimension >= 0, "matrix dimension must not be negative")
        precondition(values.count == rowIDs.count * dimension, "matrix shape")
        self.dimension = dimension
        self.rowIDs = rowIDs
        self.storage = .owned(values)
    }

    /// Wraps row-major values owned elsewhere, without copying them; traps unless
    /// `values.count == rowIDs.count * dimension`. The memory must stay valid and unchanged as long as `owner`
    /// lives: the matrix (and every copy of it) keeps `owner` alive.
    package init(
        dimension: Int, rowIDs: [Int64], borrowing values: UnsafeBufferPointer<Float>,
        owner: any AnyObject & Sendable
    ) {
        precondition(dimension >= 0, "matrix dimension must not be negative")
        precondition(values.count == rowIDs.count * dimension, "matrix shape")
        self.dimension = dimension
        self.rowIDs = rowIDs
        self.storage = .borrowed(BorrowedFloats(values, owner: owner))
    }

    /// Row-major, `rowIDs.count × dimension`, rows unit length. Borrowed values are copied into a new array on
    /// every call: scoring code uses `withUnsafeValues` instead.
    package var values: [Float] {
        switch storage {
        case .owned(let values): values
        case .borrowed(let borrowed): Array(borrowed.values)
        }
    }

    /// Whether the floats are borrowed (mapped) rather than owned.
    package var isBorrowed: Bool {
        if case .borrowed = storage { return true }
        return false
    }

    /// Calls `body` with the row-major values, owned or borrowed, without copying them.
    package func withUnsafeValues<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        switch storage {
        case .owned(let values): try values.withUnsafeBufferPointer(body)
        case .borrowed(let borrowed): try withExtendedLifetime(borrowed) { try body(borrowed.values) }
        }
    }

    /// Number of rows.
    package var count: Int { rowIDs.count }

    /// A mask allowing exactly the rows whose id is in `ids`; ids not in the matrix are ignored.
    package func mask(allowingIDs ids: some Sequence<Int64>) -> RowMask {
        // One pass over the rows against a set, so the cost is O(N + |ids|) whatever order the ids come in.
        let wanted = Set(ids)
        var mask = RowMask(count: count)
        for (row, id) in rowIDs.enumerated() where wanted.contains(id) {
            mask[row] = true
        }
        return mask
    }
}

/// Floats in memory that `owner` keeps valid and immutable (a read-only file mapping).
private final class BorrowedFloats: @unchecked Sendable {
    // Safety: the pointer is only read, and the memory behind it is immutable while `owner` lives.
    let values: UnsafeBufferPointer<Float>
    let owner: any AnyObject & Sendable

    init(_ values: UnsafeBufferPointer<Float>, owner: any AnyObject & Sendable) {
        self.values = values
        self.owner = owner
    }
}
