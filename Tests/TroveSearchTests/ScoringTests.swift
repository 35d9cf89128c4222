import Testing
import TroveTestSupport

@testable import TroveSearch
import TroveTestTraits

@Suite("BLAS scoring", .offCooperativePool)
struct ScoringTests {
    @Test(
        "every score equals a naive loop within 1e-5",
        arguments: [(1, 1), (7, 3), (100, 8), (257, 13), (1000, 384), (300, 385), (64, 768), (40_000, 5)])
    func scoresMatchNaive(rows: Int, dimension: Int) {
        var rng = SplitMix64(seed: UInt64(rows * 1000 + dimension))
        let matrix = Fixture.unitMatrix(rows: rows, dimension: dimension, using: &rng)
        let query = rng.unitVector(dimension: dimension)
        let expected = Naive.scores(matrix, query)
        let byID = Dictionary(uniqueKeysWithValues: zip(matrix.rowIDs, expected))

        // k = N returns every row, so every BLAS score is checked; 40 000 rows crosses the 16 Ki block size.
        let results = VectorSearcher(matrix: matrix).search(query: query, k: rows)
        #expect(results.count == rows)
        for row in results {
            let naive = byID[row.id]!
            #expect(abs(row.score - naive) <= 1e-5, "id \(row.id): blas \(row.score), naive \(naive)")
        }
        for (a, b) in zip(results, results.dropFirst()) {
            #expect(a.score >= b.score)
        }
    }

    @Test("a zero-dimension matrix scores every row 0 and ranks by id")
    func zeroDimension() {
        let matrix = VectorMatrix(dimension: 0, rowIDs: [9, 2, 5, 1], values: [])
        let results = VectorSearcher(matrix: matrix).search(query: [], k: 3)
        #expect(results == [ScoredRow(id: 1, score: 0), ScoredRow(id: 2, score: 0), ScoredRow(id: 5, score: 0)])
    }

    @Test("a NaN in a row or the query never reaches the results")
    func nanNeverAppears() {
        var rng = SplitMix64(seed: 42)
        var values = Fixture.unitMatrix(rows: 50, dimension: 16, using: &rng).values
        values[3 * 16 + 2] = .nan
        values[17 * 16] = .nan
        let matrix = VectorMatrix(dimension: 16, rowIDs: (0..<50).map(Int64.init), values: values)
        let searcher = VectorSearcher(matrix: matrix)
        let results = searcher.search(query: rng.unitVector(dimension: 16), k: 100)
        #expect(results.count == 48)
        #expect(!results.contains { $0.score.isNaN || $0.id == 3 || $0.id == 17 })

        var query = rng.unitVector(dimension: 16)
        query[0] = .nan
        #expect(searcher.search(query: query, k: 10).isEmpty)
    }

    @Test("validate names the expected and found dimension, and a non-finite value")
    func validation() {
        let searcher = VectorSearcher(matrix: VectorMatrix(dimension: 3, rowIDs: [1], values: [1, 0, 0]))
        #expect(throws: SearchError(code: .dimensionMismatch, message: "query has 2 dimensions, expected 3")) {
            try searcher.validate(query: [1, 0])
        }
        #expect(
            throws: SearchError(
                code: .nonFiniteQuery, message: "query value at index 1 is inf, expected a finite number")
        ) {
            try searcher.validate(query: [0, .infinity, 0])
        }
        #expect(throws: Never.self) { try searcher.validate(query: [0, 1, 0]) }
        #expect(String(describing: SearchError(code: .dimensionMismatch, message: "m")) == "m")
    }
}
