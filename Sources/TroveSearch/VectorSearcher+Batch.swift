import TroveBLAS

extension VectorSearcher {
    /// Floats of scores per `sgemm` block, shared by all queries: 1 MiB, half an L2.
    static let batchScoreBudget = 262_144

    /// `search(query:k:minScore:)` for each query, scored together with one `sgemm` per row block.
    package func search(queries: [[Float]], k: Int, minScore: Float = -.infinity) -> [[ScoredRow]] {
        let n = matrix.count
        let d = matrix.dimension
        let m = queries.count
        for (index, query) in queries.enumerated() {
            precondition(query.count == d, "query \(index) has \(query.count) dimensions, expected \(d)")
        }
        precondition(!minScore.isNaN, "minScore is NaN")
        guard m > 0 else { return [] }
        guard k > 0, n > 0 else { return Array(repeating: [], count: m) }

        // Queries as one row-major m × d matrix, so sgemm reads each matrix block once for all of them.
        var packed = [Float]()
        packed.reserveCapacity(m * d)
        for query in queries { packed.append(contentsOf: query) }

        let block = Swift.min(n, Swift.max(64, Self.batchScoreBudget / m))
        var scores = [Float](repeating: 0, count: m * block)
        var tops = (0..<m).map { _ in TopK(capacity: Swift.min(k, n)) }
        matrix.withUnsafeValues { values in
            packed.withUnsafeBufferPointer { packed in
                matrix.rowIDs.withUnsafeBufferPointer { ids in
                    scores.withUnsafeMutableBufferPointer { scores in
                        var start = 0
                        while start < n {
                            let rows = Swift.min(block, n - start)
                            // scores (m × rows) = queries (m × d) · blockᵀ (d × rows): each query's scores contiguous.
                            if d > 0 {
                                BLAS.sgemm(
                                    CblasRowMajor, CblasNoTrans, CblasTrans, Int32(m), Int32(rows), Int32(d), 1,
                                    packed.baseAddress!, Int32(d), values.baseAddress! + start * d, Int32(d),
                                    0, scores.baseAddress!, Int32(rows))
                            }
                            for q in 0..<m {
                                tops[q].offer(
                                    scores: UnsafeBufferPointer(rebasing: scores[(q * rows)..<(q * rows + rows)]),
                                    ids: ids.baseAddress! + start, minScore: minScore)
                            }
                            start += rows
                        }
                    }
                }
            }
        }
        return tops.map { $0.sortedBestFirst() }
    }
}
