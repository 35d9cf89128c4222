import Testing
import TroveSearch
import TroveTestSupport

@Suite("Reciprocal Rank Fusion")
struct RankFusionTests {
    @Test("a passage first in both rankings scores 1 and comes first")
    func firstInBoth() {
        let fused = RankFusion(constant: 60).fuse([[7, 3, 5], [7, 5, 9]])
        #expect(fused.first == FusedRow(id: 7, score: 1, ranks: [1, 1]))
        #expect(fused.map(\.id) == [7, 5, 3, 9])
    }

    @Test("a passage in both lists beats one ranked a little higher in only one")
    func agreementWins() {
        // 5 is 3rd and 2nd; 3 is 2nd in one list only.
        let fused = RankFusion(constant: 60).fuse([[7, 3, 5], [7, 5, 9]])
        #expect(fused.firstIndex { $0.id == 5 }! < fused.firstIndex { $0.id == 3 }!)
        #expect(fused.first { $0.id == 3 }?.ranks == [2, nil])
    }

    @Test("equal scores are ordered by best rank, then ascending id")
    func ties() {
        // 4 and 2 are each first in one list; 9 and 8 each second.
        let fused = RankFusion(constant: 10).fuse([[4, 9], [2, 8]])
        #expect(fused.map(\.id) == [2, 4, 8, 9])
    }

    @Test("an empty list leaves the other's order unchanged")
    func oneSided() {
        let fused = RankFusion(constant: 60).fuse([[], [3, 1, 2]])
        #expect(fused.map(\.id) == [3, 1, 2])
        #expect(fused.map(\.ranks) == [[nil, 1], [nil, 2], [nil, 3]])
    }

    @Test("weights tilt the fusion toward one ranking")
    func weights() {
        let even = RankFusion(constant: 1).fuse([[1, 2], [2, 1]])
        let tilted = RankFusion(constant: 1, weights: [1, 3]).fuse([[1, 2], [2, 1]])
        #expect(even.map(\.id) == [1, 2])  // a tie, broken by id
        #expect(tilted.map(\.id) == [2, 1])
    }

    @Test("fused scores match a naive sum over random lists", arguments: [1, 2, 3])
    func naive(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let lists: [[Int64]] = (0..<2).map { _ in
            var ids = Array(Int64(0)..<40)
            ids.shuffle(using: &rng)
            return Array(ids.prefix(25))
        }
        let constant = 30.0
        let fused = RankFusion(constant: constant).fuse(lists)
        #expect(Set(fused.map(\.id)) == Set(lists.joined()))
        for row in fused {
            var expected = 0.0
            for list in lists {
                if let index = list.firstIndex(of: row.id) { expected += 1 / (constant + Double(index + 1)) }
            }
            #expect(abs(row.score - expected / (2 / (constant + 1))) < 1e-12)
        }
        #expect(zip(fused, fused.dropFirst()).allSatisfy { $0.score >= $1.score })
    }

    @Test("a row's score by id equals its score in the full ranking")
    func scoreByID() {
        var rng = SplitMix64(seed: 9)
        let d = 16
        let ids = (0..<50).map { Int64($0 * 3) }
        let matrix = VectorMatrix(
            dimension: d, rowIDs: ids, values: (0..<50).flatMap { _ in rng.quantizedVector(dimension: d) })
        let query = rng.quantizedVector(dimension: d)
        let ranked = VectorSearcher(matrix: matrix).search(query: query, k: 50)
        for row in ranked { #expect(matrix.score(ofID: row.id, query: query) == row.score) }
        #expect(matrix.score(ofID: 4, query: query) == nil)
        #expect(matrix.row(ofID: 147) == 49)
    }
}
