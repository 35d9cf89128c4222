import Testing
import TroveTestSupport

@testable import TroveSearch
import TroveTestTraits

@Suite("batch search and row masks", .offCooperativePool)
struct BatchAndMaskTests {
    @Test(
        "batch search equals single search per query", arguments: [(0, 50), (1, 200), (3, 17), (50, 1000), (2000, 300)])
    func batchEqualsSingle(queryCount: Int, rows: Int) {
        var rng = SplitMix64(seed: UInt64(queryCount * 31 + rows))
        // 2000 queries shrink the sgemm block to 131 rows, so 300 rows span several blocks.
        let matrix = Fixture.quantizedMatrix(rows: rows, dimension: 9, using: &rng)
        let queries = (0..<queryCount).map { _ in rng.quantizedVector(dimension: 9) }
        let searcher = VectorSearcher(matrix: matrix)
        for (k, minScore) in [(1, -Float.infinity), (10, 0), (rows + 5, -Float.infinity), (0, -Float.infinity)] {
            let batch = searcher.search(queries: queries, k: k, minScore: minScore)
            #expect(batch.count == queryCount)
            for (query, results) in zip(queries, batch) {
                #expect(results == searcher.search(query: query, k: k, minScore: minScore))
            }
        }
    }

    @Test("batch scores on continuous data match single scores within 1e-5")
    func batchContinuous() {
        var rng = SplitMix64(seed: 99)
        let matrix = Fixture.unitMatrix(rows: 2000, dimension: 385, using: &rng)
        let queries = (0..<20).map { _ in rng.unitVector(dimension: 385) }
        let searcher = VectorSearcher(matrix: matrix)
        for (query, results) in zip(queries, searcher.search(queries: queries, k: 2000)) {
            let naive = Dictionary(uniqueKeysWithValues: zip(matrix.rowIDs, Naive.scores(matrix, query)))
            #expect(results.count == 2000)
            #expect(results.allSatisfy { abs($0.score - naive[$0.id]!) <= 1e-5 })
        }
    }

    @Test("disallowed rows never enter the top k", arguments: 0..<30)
    func maskMatchesFilteredSort(seed: Int) {
        var rng = SplitMix64(seed: UInt64(5000 + seed))
        let rows = [1, 10, 100, 999][seed % 4]
        let matrix = Fixture.quantizedMatrix(rows: rows, dimension: 4, using: &rng)
        // From almost nothing allowed to almost everything.
        let percent = UInt64([1, 10, 50, 95][seed % 4 == 0 ? 2 : (seed / 4) % 4])
        let allowed = (0..<rows).map { _ in rng.next() % 100 < percent }
        let mask = RowMask(allowed)
        let query = rng.quantizedVector(dimension: 4)
        let searcher = VectorSearcher(matrix: matrix)
        for k in [1, 5, rows, rows + 3] {
            let results = searcher.search(query: query, k: k, allowed: mask)
            #expect(results == Naive.topK(matrix, query, k: k, allowed: allowed))
            // The mask filters before selection, so k allowed rows come back whenever that many exist.
            #expect(results.count == min(k, mask.allowedCount))
        }
        let blocked = searcher.rank(query: query, k: 10, minScore: 0, allowed: mask, blockRows: 3)
        #expect(blocked == Naive.topK(matrix, query, k: 10, minScore: 0, allowed: allowed))
    }

    @Test("a mask that allows only the worst row still returns it")
    func maskKeepsWorstRow() {
        let matrix = VectorMatrix(dimension: 2, rowIDs: [10, 20, 30], values: [1, 0, 0.5, 0, -1, 0])
        let searcher = VectorSearcher(matrix: matrix)
        #expect(
            searcher.search(query: [1, 0], k: 1, allowed: RowMask([false, false, true])) == [
                ScoredRow(id: 30, score: -1)
            ])
        #expect(searcher.search(query: [1, 0], k: 5, allowed: RowMask(count: 3)).isEmpty)
        #expect(searcher.search(query: [1, 0], k: 5, allowed: RowMask(count: 3, allowingAll: true)).count == 3)
    }

    @Test("masks count, compare and build from ids")
    func maskBasics() {
        #expect(RowMask(count: 130, allowingAll: true).allowedCount == 130)
        #expect(RowMask(count: 64, allowingAll: true).allowedCount == 64)
        #expect(RowMask(count: 0, allowingAll: true).allowedCount == 0)
        var mask = RowMask(count: 70)
        mask[69] = true
        mask[0] = true
        mask[0] = false
        #expect(mask.allowedCount == 1 && mask[69] && !mask[0])
        let bools = (0..<70).map { $0 == 69 }
        #expect(RowMask(bools) == mask)

        let matrix = VectorMatrix(dimension: 1, rowIDs: [5, 8, 13, 21], values: [1, 1, 1, 1])
        #expect(matrix.mask(allowingIDs: [21, 5, 99]) == RowMask([true, false, false, true]))
    }
}
