import TroveBLAS

/// Approximate-then-exact ranking: an int8 copy of the matrix (a quarter of the bytes) is scanned first, and the
/// best `rescoreDepth` rows are rescored exactly in float32, so the returned scores are exact and only the
/// candidate set is approximate. Opt-in: exact `VectorSearcher` stays the default.
package struct QuantizedSearcher: Sendable {
    /// The float matrix, for exact rescoring.
    package let matrix: VectorMatrix
    /// Row-major int8 codes: `codes[r*d + j] = round(values[r*d + j] / scales[r])`.
    let codes: [Int8]
    /// Per-row scale: the row's largest magnitude divided by 127.
    let scales: [Float]
    /// Rows rescored exactly per query, at least k.
    package var rescoreDepth: Int

    /// Quantizes `matrix` (one pass over it).
    package init(matrix: VectorMatrix, rescoreDepth: Int = 100) {
        BLASRuntime.applyDefaultOnce()
        self.matrix = matrix
        self.rescoreDepth = rescoreDepth
        let d = matrix.dimension
        var scales = [Float](repeating: 0, count: matrix.count)
        codes = [Int8](unsafeUninitializedCapacity: matrix.count * d) { buffer, initialized in
            matrix.withUnsafeValues { values in
                for row in 0..<matrix.count {
                    let base = row * d
                    var largest: Float = 0
                    for j in 0..<d where values[base + j].isFinite {
                        largest = Swift.max(largest, abs(values[base + j]))
                    }
                    let scale = largest > 0 ? largest / 127 : 1
                    scales[row] = scale
                    for j in 0..<d { buffer[base + j] = Self.code(values[base + j] / scale) }
                }
            }
            initialized = matrix.count * d
        }
        self.scales = scales
    }

    /// `x` rounded to an int8 code. Values are validated finite when stored, but the floats of a mapped cache file
    /// are not re-read: NaN codes as 0 and anything outside ±127 is clamped, where `Int8(_:)` would trap.
    static func code(_ x: Float) -> Int8 {
        guard !x.isNaN else { return 0 }
        return Int8(Swift.min(127, Swift.max(-127, x.rounded())))
    }

    /// The best `k` rows for a unit-length query, exact scores, best first (ties by ascending id); only rows
    /// `allowed` permits (all when nil) and scoring at least `minScore`.
    package func search(query: [Float], k: Int, minScore: Float = -.infinity, allowed: RowMask? = nil) -> [ScoredRow] {
        let n = matrix.count
        let d = matrix.dimension
        precondition(query.count == d, "query has \(query.count) dimensions, expected \(d)")
        if let allowed { precondition(allowed.count == n, "mask covers \(allowed.count) rows, matrix has \(n)") }
        guard k > 0, n > 0, d > 0 else { return [] }
        let largest = query.reduce(Float(0)) { $1.isFinite ? Swift.max($0, abs($1)) : $0 }
        let queryScale = largest > 0 ? largest / 127 : 1
        let queryCodes = query.map { Self.code($0 / queryScale) }

        // Approximate pass: integer dot products, then the row and query scales.
        var candidates = TopK(capacity: Swift.min(n, Swift.max(k, rescoreDepth)))
        let block = 4096
        var sums = [Int32](repeating: 0, count: block)
        var scores = [Float](repeating: 0, count: block)
        codes.withUnsafeBufferPointer { codes in
            queryCodes.withUnsafeBufferPointer { q in
                scales.withUnsafeBufferPointer { scales in
                    scores.withUnsafeMutableBufferPointer { scores in
                        var start = 0
                        while start < n {
                            let rows = Swift.min(block, n - start)
                            ScanKernel.best.scoreInt8(
                                rows: codes.baseAddress! + start * d, count: rows, dimension: d, query: q.baseAddress!,
                                into: &sums)
                            for r in 0..<rows { scores[r] = Float(sums[r]) * scales[start + r] * queryScale }
                            // Row positions serve as ids here; the exact pass maps them to row ids.
                            for r in 0..<rows where allowed?[start + r] ?? true {
                                candidates.offer(ScoredRow(id: Int64(start + r), score: scores[r]))
                            }
                            start += rows
                        }
                    }
                }
            }
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
}
