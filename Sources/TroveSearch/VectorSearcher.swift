import TroveBLAS

/// Exact cosine ranking over a `VectorMatrix` with BLAS.
package struct VectorSearcher: Sendable {
    /// The snapshot this searcher ranks.
    package let matrix: VectorMatrix

    /// Rows scored per kernel call: 16 Ki floats (64 KiB) of scores stay in L2 between scoring and selection,
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

    /// The ranking behind every single-query search; `blockRows`, `kernel` and `threads` (default: BLAS's thread
    /// count) are exposed for the tests and the benchmark. BLAS's sgemv threads itself; a Trove kernel splits the
    /// rows into one part per thread, each with its own top k, merged at the end: the same rows as one pass, because
    /// ranking is a total order (score, then id).
    package func rank(
        query: [Float], k: Int, minScore: Float, allowed: RowMask?, blockRows: Int, kernel: ScanKernel = .best,
        threads: Int? = nil
    ) -> [ScoredRow] {
        let n = matrix.count
        let d = matrix.dimension
        precondition(query.count == d, "query has \(query.count) dimensions, expected \(d)")
        precondition(!minScore.isNaN, "minScore is NaN")
        if let allowed { precondition(allowed.count == n, "mask covers \(allowed.count) rows, matrix has \(n)") }
        guard k > 0, n > 0 else { return [] }

        let block = Swift.min(n, Swift.max(1, blockRows))
        let threads = threads ?? BLASRuntime.threadCount
        let parts = kernel == .blas ? 1 : Self.parts(rows: n, dimension: d, threads: threads)
        let top = TopK.merged(rows: n, parts: parts, capacity: Swift.min(k, n)) { rows in
            scan(rows: rows, query: query, k: k, minScore: minScore, allowed: allowed, block: block, kernel: kernel)
        }
        return top.sortedBestFirst()
    }

    /// Floats a part scores at least before the scan is split: 1 MiB, ~50 µs of reading, against the ~10 µs of
    /// handing a part to another thread and back.
    static let floatsPerPart = 1 << 18

    /// How many parts to split `rows` rows of `dimension` into: one per thread, but none smaller than `floatsPerPart`.
    static func parts(rows: Int, dimension: Int, threads: Int) -> Int {
        Swift.max(1, Swift.min(threads, rows, rows * dimension / floatsPerPart))
    }

    /// The best `k` of `rows`, scored `block` rows at a time into a buffer that stays in L2 for the selection.
    private func scan(
        rows: Range<Int>, query: [Float], k: Int, minScore: Float, allowed: RowMask?, block: Int, kernel: ScanKernel
    ) -> TopK {
        let d = matrix.dimension
        var top = TopK(capacity: Swift.min(k, rows.count))
        var scores = [Float](repeating: 0, count: Swift.min(block, rows.count))
        matrix.withUnsafeValues { values in
            query.withUnsafeBufferPointer { query in
                matrix.rowIDs.withUnsafeBufferPointer { ids in
                    scores.withUnsafeMutableBufferPointer { scores in
                        var start = rows.lowerBound
                        while start < rows.upperBound {
                            let count = Swift.min(scores.count, rows.upperBound - start)
                            kernel.score(
                                rows: values.baseAddress! + start * d, count: count, dimension: d,
                                query: query.baseAddress!, into: scores.baseAddress!)
                            top.offer(
                                scores: UnsafeBufferPointer(rebasing: scores[0..<count]),
                                ids: ids.baseAddress! + start, minScore: minScore,
                                allowed: allowed, firstRow: start)
                            start += count
                        }
                    }
                }
            }
        }
        return top
    }
}
