import CTroveScan
import TroveBLAS

/// Approximate-then-exact ranking: an int8 copy of the matrix (a quarter of the bytes) is scanned first, and its
/// best k + `rescoreDepth` rows are rescored exactly in float32, so the returned scores are exact and only the
/// candidate set is approximate. TroveKit's `VectorScan` decides when a search takes it instead of `VectorSearcher`.
package struct QuantizedSearcher: Sendable {
    /// The float matrix, for exact rescoring.
    package let matrix: VectorMatrix
    /// Row-major int8 codes: `codes[r*d + j] = round(values[r*d + j] / scales[r])`.
    let codes: [Int8]
    /// Per-row scale: the row's largest finite magnitude divided by 127.
    let scales: [Float]
    /// Rows rescored exactly per query beyond the k asked for: a margin for rows the int8 scores misplace, so a
    /// deep search (a hybrid search asks for 200) is as near exact at its bottom as at its top.
    package var rescoreDepth: Int

    /// Quantizes `matrix` (one pass over it, `trove_quantize_int8`).
    package init(matrix: VectorMatrix, rescoreDepth: Int = 100) {
        BLASRuntime.applyDefaultOnce()
        self.matrix = matrix
        self.rescoreDepth = rescoreDepth
        let d = matrix.dimension
        var scales = [Float](repeating: 0, count: matrix.count)
        codes = [Int8](unsafeUninitializedCapacity: matrix.count * d) { buffer, initialized in
            matrix.withUnsafeValues { values in
                scales.withUnsafeMutableBufferPointer { scales in
                    if let values = values.baseAddress, let codes = buffer.baseAddress {
                        trove_quantize_int8(values, matrix.count, d, codes, scales.baseAddress!)
                    }
                }
            }
            initialized = matrix.count * d
        }
        self.scales = scales
    }

    /// `vector` as one row of the copy: its codes and its scale. Values are validated finite when stored, but the
    /// floats of a mapped cache file are not re-read: NaN codes as 0 and anything beyond the finite values' range
    /// is clamped to ±127.
    static func quantized(_ vector: [Float]) -> (codes: [Int8], scale: Float) {
        var scale: Float = 1
        let codes = [Int8](unsafeUninitializedCapacity: vector.count) { buffer, initialized in
            vector.withUnsafeBufferPointer { values in
                if let values = values.baseAddress, let codes = buffer.baseAddress {
                    trove_quantize_int8(values, 1, vector.count, codes, &scale)
                }
            }
            initialized = vector.count
        }
        return (codes, scale)
    }

    /// The best `k` rows for a unit-length query, exact scores, best first (ties by ascending id); only rows
    /// `allowed` permits (all when nil) and scoring at least `minScore`. `threads` (default: BLAS's thread count)
    /// is exposed for the tests.
    package func search(
        query: [Float], k: Int, minScore: Float = -.infinity, allowed: RowMask? = nil, threads: Int? = nil
    ) -> [ScoredRow] {
        let n = matrix.count
        let d = matrix.dimension
        precondition(query.count == d, "query has \(query.count) dimensions, expected \(d)")
        if let allowed { precondition(allowed.count == n, "mask covers \(allowed.count) rows, matrix has \(n)") }
        guard k > 0, n > 0, d > 0 else { return [] }
        let (queryCodes, queryScale) = Self.quantized(query)

        // Approximate pass: integer dot products, then the row and query scales; split into one part per thread as
        // the exact scan is (`VectorSearcher.parts`, counting a row of codes as d/4 floats' bytes), each part with
        // its own candidates, merged: the same candidates as one pass, the order being total (score, then row).
        let capacity = Swift.min(n, k + rescoreDepth)
        let parts = VectorSearcher.parts(
            rows: n, dimension: Swift.max(1, d / 4), threads: threads ?? BLASRuntime.threadCount)
        let candidates = TopK.merged(rows: n, parts: parts, capacity: capacity) { rows in
            approximate(rows: rows, query: queryCodes, scale: queryScale, allowed: allowed, capacity: capacity)
        }
        // Exact pass over the candidates only, with the exact scan's kernel: the same scores as exact search.
        var top = TopK(capacity: Swift.min(k, n))
        for candidate in candidates.heap {
            let row = Int(candidate.id)
            let score = matrix.score(ofRow: row, query: query)
            if score >= minScore { top.offer(ScoredRow(id: matrix.rowIDs[row], score: score)) }
        }
        return top.sortedBestFirst()
    }

    /// The best `capacity` of `rows` by their int8 scores (row positions as ids), scored 4096 rows at a time.
    private func approximate(rows: Range<Int>, query: [Int8], scale: Float, allowed: RowMask?, capacity: Int) -> TopK {
        let d = matrix.dimension
        var candidates = TopK(capacity: Swift.min(capacity, rows.count))
        let block = Swift.min(4096, rows.count)
        var sums = [Int32](repeating: 0, count: block)
        codes.withUnsafeBufferPointer { codes in
            query.withUnsafeBufferPointer { q in
                scales.withUnsafeBufferPointer { scales in
                    var start = rows.lowerBound
                    while start < rows.upperBound {
                        let count = Swift.min(block, rows.upperBound - start)
                        ScanKernel.best.scoreInt8(
                            rows: codes.baseAddress! + start * d, count: count, dimension: d, query: q.baseAddress!,
                            into: &sums)
                        // Row positions serve as ids here; the exact pass maps them to row ids.
                        for r in 0..<count where allowed?[start + r] ?? true {
                            let score = Float(sums[r]) * scales[start + r] * scale
                            candidates.offer(ScoredRow(id: Int64(start + r), score: score))
                        }
                        start += count
                    }
                }
            }
        }
        return candidates
    }
}
