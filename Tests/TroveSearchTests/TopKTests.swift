import Testing
import TroveTestSupport

@testable import TroveSearch
import TroveTestTraits

@Suite("top-k selection", .offCooperativePool)
struct TopKTests {
    @Test("top-k equals a full sort, ties by ascending id", arguments: 0..<60)
    func matchesFullSort(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        let rows = [0, 1, 2, 5, 31, 200, 1000][seed % 7]
        let dimension = [1, 3, 8, 13][seed % 4]
        // Few levels in few dimensions make many exact ties on top of the duplicated rows.
        let matrix = Fixture.quantizedMatrix(rows: rows, dimension: dimension, levels: 1 + seed % 3, using: &rng)
        let query = rng.quantizedVector(dimension: dimension)
        let searcher = VectorSearcher(matrix: matrix)
        for k in [0, 1, 2, 10, rows, rows + 1, rows * 2 + 7, -1, Int.max] {
            #expect(searcher.search(query: query, k: k) == Naive.topK(matrix, query, k: k), "k \(k)")
        }
    }

    @Test("rows under minScore are left out, equal to minScore kept", arguments: 0..<20)
    func minScore(seed: Int) {
        var rng = SplitMix64(seed: UInt64(1000 + seed))
        let matrix = Fixture.quantizedMatrix(rows: 300, dimension: 6, using: &rng)
        let query = rng.quantizedVector(dimension: 6)
        let searcher = VectorSearcher(matrix: matrix)
        for minScore: Float in [-.infinity, -1, 0, 0.25, 1, 100] {
            for k in [1, 10, 300] {
                let results = searcher.search(query: query, k: k, minScore: minScore)
                #expect(results == Naive.topK(matrix, query, k: k, minScore: minScore))
                #expect(results.allSatisfy { $0.score >= minScore })
            }
        }
    }

    @Test("an empty matrix returns nothing")
    func emptyMatrix() {
        let searcher = VectorSearcher(matrix: VectorMatrix(dimension: 4, rowIDs: [], values: []))
        #expect(searcher.search(query: [1, 0, 0, 0], k: 10).isEmpty)
        #expect(searcher.search(queries: [[1, 0, 0, 0], [0, 1, 0, 0]], k: 3) == [[], []])
        #expect(searcher.search(query: [1, 0, 0, 0], k: 10, allowed: RowMask(count: 0)).isEmpty)
    }

    @Test("scoring in small blocks selects the same rows as one block", arguments: [1, 2, 7, 64, 1000, Int.max])
    func blockSizeDoesNotMatter(blockRows: Int) {
        var rng = SplitMix64(seed: UInt64(blockRows % 9973))
        let matrix = Fixture.quantizedMatrix(rows: 777, dimension: 5, using: &rng)
        let searcher = VectorSearcher(matrix: matrix)
        for _ in 0..<5 {
            let query = rng.quantizedVector(dimension: 5)
            for k in [1, 10, 800] {
                let blocked = searcher.rank(query: query, k: k, minScore: 0, allowed: nil, blockRows: blockRows)
                #expect(blocked == Naive.topK(matrix, query, k: k, minScore: 0))
            }
        }
    }

    @Test("the heap alone keeps the best k of a stream with ties")
    func heapDirect() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let count = Int(rng.next() % 100)
            let k = Int(rng.next() % 20)
            let rows = (0..<count).map { _ in ScoredRow(id: Int64(rng.next() % 50), score: Float(rng.next() % 5)) }
            var top = TopK(capacity: k)
            for row in rows { top.offer(row) }
            let expected = rows.sorted { $0.ranks(before: $1) }.prefix(k)
            #expect(top.sortedBestFirst() == Array(expected))
        }
    }
}
