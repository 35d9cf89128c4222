import TroveBLAS

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
        guard dimension > 0 else { return 0 }
        // Equal to the score the row gets in a full ranking up to float rounding (sgemv may sum in another order).
        return withUnsafeValues { values in
            query.withUnsafeBufferPointer { query in
                BLAS.sdot(Int32(dimension), values.baseAddress! + row * dimension, 1, query.baseAddress!, 1)
            }
        }
    }
}
