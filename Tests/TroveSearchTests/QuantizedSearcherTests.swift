import Testing
import TroveTestSupport

@testable import TroveSearch
import TroveTestTraits

@Suite("Int8 scanning with exact rescoring", .offCooperativePool)
struct QuantizedSearcherTests {
    @Test(
        "recall against exact search is at least 0.999 on random unit vectors, at 10 and at a hybrid search's 200",
        arguments: [(64, 10), (384, 10), (384, 200)])
    func recall(dimension: Int, k: Int) {
        var rng = SplitMix64(seed: UInt64(dimension))
        let n = 5_000
        let matrix = VectorMatrix(
            dimension: dimension, rowIDs: (0..<n).map { Int64($0 * 2) },
            values: (0..<n).flatMap { _ in rng.unitVector(dimension: dimension) })
        let exact = VectorSearcher(matrix: matrix)
        let quantized = QuantizedSearcher(matrix: matrix)
        var found = 0
        let queries = 50
        for _ in 0..<queries {
            let query = rng.unitVector(dimension: dimension)
            let truth = exact.search(query: query, k: k)
            let approximate = quantized.search(query: query, k: k)
            found += Set(truth.map(\.id)).intersection(approximate.map(\.id)).count
            // Scores are exact: every returned row carries its float32 score.
            for row in approximate {
                #expect(abs(row.score - matrix.score(ofID: row.id, query: query)!) < 1e-5)
            }
        }
        #expect(Double(found) / Double(queries * k) >= 0.999)
    }

    @Test("a mask and a score floor hold, as in exact search")
    func maskAndFloor() {
        var rng = SplitMix64(seed: 5)
        let n = 1_000
        let d = 32
        let matrix = VectorMatrix(
            dimension: d, rowIDs: (0..<n).map(Int64.init), values: (0..<n).flatMap { _ in rng.unitVector(dimension: d) })
        let allowed = RowMask((0..<n).map { $0 % 7 == 0 })
        let query = rng.unitVector(dimension: d)
        let hits = QuantizedSearcher(matrix: matrix).search(query: query, k: 10, minScore: 0.1, allowed: allowed)
        #expect(!hits.isEmpty)
        #expect(hits.allSatisfy { $0.id % 7 == 0 && $0.score >= 0.1 })
        let exact = VectorSearcher(matrix: matrix).search(query: query, k: 10, minScore: 0.1, allowed: allowed)
        // Same rows; scores equal up to float rounding (sdot and sgemv may sum in another order).
        #expect(hits.map(\.id) == exact.map(\.id))
        #expect(zip(hits, exact).allSatisfy { abs($0.score - $1.score) < 1e-5 })
    }

    @Test("split over threads, the pass keeps the very candidates of one pass: the same hits, masked or not")
    func split() {
        var rng = SplitMix64(seed: 11)
        let n = 30_001  // parts of 7,500 rows at least: split two or three ways at 384 dimensions
        let d = 384
        let matrix = VectorMatrix(
            dimension: d, rowIDs: (0..<n).map { Int64($0 * 3) },
            values: (0..<n).flatMap { _ in rng.unitVector(dimension: d) })
        #expect(VectorSearcher.parts(rows: n, dimension: d / 4, threads: 3) == 3)
        let quantized = QuantizedSearcher(matrix: matrix)
        let allowed = RowMask((0..<n).map { $0 % 5 != 0 })
        for _ in 0..<10 {
            let query = rng.unitVector(dimension: d)
            for mask in [nil, allowed] {
                let one = quantized.search(query: query, k: 50, allowed: mask, threads: 1)
                #expect(one.count == 50)
                for threads in [2, 3] {
                    #expect(quantized.search(query: query, k: 50, allowed: mask, threads: threads) == one)
                }
            }
        }
    }

    @Test("NaN and infinity in a mapped matrix code as 0 or ±127, and leave the row's scale to its finite values")
    func nonFiniteValues() {
        let matrix = VectorMatrix(
            dimension: 4, rowIDs: [1, 2, 3],
            values: [.nan, 1, 0, 0, .infinity, 0, 1, 0, 0, 0, -.infinity, 1])
        let quantized = QuantizedSearcher(matrix: matrix)
        #expect(quantized.search(query: [0, 0, 0, 1], k: 3).count <= 3)
        // The scale comes from the finite values only; the codes round to nearest.
        let row = QuantizedSearcher.quantized([.nan, 1.27, .infinity, -.infinity, -0.4572, 0.0362, 0])
        #expect(abs(row.scale - 0.01) < 1e-7)
        #expect(row.codes == [0, 127, 127, -127, -46, 4, 0])
        #expect(QuantizedSearcher.quantized([0, 0, .nan]) == ([0, 0, 0], 1))
    }
}
