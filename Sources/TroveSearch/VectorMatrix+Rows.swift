extension VectorMatrix {
    /// The row holding `id`, found by binary search: `rowIDs` must be ascending (as the store hands them).
    package func row(ofID id: Int64) -> Int? {
        var low = 0
        var high = rowIDs.count
        while low < high {
            let middle = (low + high) / 2
            if rowIDs[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < rowIDs.count && rowIDs[low] == id ? low : nil
    }

    /// The dot product of row `id` with `query` (cosine similarity for unit vectors); nil for an unknown id.
    package func score(ofID id: Int64, query: [Float]) -> Float? {
        precondition(query.count == dimension, "query has \(query.count) dimensions, expected \(dimension)")
        guard let row = row(ofID: id) else { return nil }
        return score(ofRow: row, query: query)
    }

    /// The dot product of the row at `row` with `query`: the very score the row gets in a full ranking with a Trove
    /// kernel; with BLAS equal to it up to float rounding (sgemv may sum in another order than sdot).
    package func score(ofRow row: Int, query: [Float]) -> Float {
        guard dimension > 0 else { return 0 }
        return withUnsafeValues { values in
            query.withUnsafeBufferPointer { query in
                ScanKernel.best.dot(values.baseAddress! + row * dimension, query.baseAddress!, dimension: dimension)
            }
        }
    }
}
