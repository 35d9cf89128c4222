import TroveBLAS

/// Exact cosine ranking over a `VectorMatrix` with BLAS.
package struct VectorSearcher: Sendable {
    /// The snapshot this searcher ranks.
    package let matrix: VectorMatrix

    /// Rows scored per `sgemv` call: 16 Ki floats (64 KiB) of scores stay in L2 between sgemv and selection,
    /// instead of writing and re-reading an N-float array (and paging a fresh one in per query at large N).
    package static let defaultBlockRows = 16_384

    /// A searcher over `matrix`; applies `BLASRuntime.recommendedThreadCount` on first use.
    package init(matrix: VectorMatrix) {
        BLASRuntime.applyDefaultOnce()
        self.matrix = matrix
    }

    /// The best `k` rows for a unit-length query, best first, ties by ascending id; rows below `minScore` left out.
    package func search(query: [Float], k: Int, minScore: Float = -.infinity) -> [ScoredRow] {
        rank(query: query, k: k, minScore: minScore, allowed: nil, blockRows: Self.defaultBlockRows)
    }

    /// Like `search(query:k:minScore:)`, but only rows `allowed` permits can enter the top k.
    package func search(query: [Float], k: Int, minScore: Float = -.infinity, allowed: RowMask) -> [ScoredRow] {
        rank(query: query, k: k, minScore: minScore, allowed: allowed, blockRows: Self.defaultBlockRows)
    }

    /// Throws unless `query` has the matrix's dimension and only finite values; `search` traps on a wrong dimension.
    package func validate(query: [Float]) throws(SearchError) {
        guard query.count == matrix.dimension else {
            throw SearchError(
                code: .dimensionMismatch,
                message: "query has \(query.count) dimensions, expected \(matrix.dimension)")
        }
        if let index = query.firstIndex(where: { !$0.isFinite }) {
            throw SearchError(
                code: .nonFiniteQuery,
                message: "query value at index \(index) is \(query[index]), expected a finite number")
        }
    }

    /// The ranking behind every single-query search; `blockRows` is exposed for the benchmark.
    package func rank(query: [Float], k: Int, minScore: Float, allowed: RowMask?, blockRows: Int) -> [ScoredRow] {
        let n = matrix.count
        let d = matrix.dimension
        precondition(query.count == d, "query has \(query.count) dimensions, expected \(d)")
        precondition(!minScore.isNaN, "minScore is NaN")
        if let allowed { precondition(allowed.count == n, "mask covers \(allowed.count) rows, matrix has \(n)") }
        guard k > 0, n > 0 else { return [] }

        var top = TopK(capacity: Swift.min(k, n))
        let block = Swift.min(n, Swift.max(1, blockRows))
        var scores = [Float](repeating: 0, count: block)
        matrix.withUnsafeValues { values in
            query.withUnsafeBufferPointer { query in
                matrix.rowIDs.withUnsafeBufferPointer { ids in
                    scores.withUnsafeMutableBufferPointer { scores in
                        var start = 0
                        while start < n {
                            let rows = Swift.min(block, n - start)
                            // A zero-dimension matrix scores 0 everywhere; BLAS rejects lda = 0.
                            if d > 0 {
                                BLAS.sgemv(
                                    CblasRowMajor, CblasNoTrans, Int32(rows), Int32(d), 1,
                                    values.baseAddress! + start * d, Int32(d), query.baseAddress!, 1,
                                    0, scores.baseAddress!, 1)
                            }
                            top.offer(
                                scores: UnsafeBufferPointer(rebasing: scores[0..<rows]),
                                ids: ids.baseAddress! + start, minScore: minScore,
                                allowed: allowed, firstRow: start)
                            start += rows
                        }
                    }
                }
            }
        }
        return top.sortedBestFirst()
    }
}
