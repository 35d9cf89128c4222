import Testing
import TroveSearch
import TroveTestSupport

@Suite("Convex fusion of normalised scores")
struct ScoreFusionTests {
    @Test("min-max: first in both lists scores 1, a candidate missing from a list counts as its worst")
    func minMax() {
        let fused = ScoreFusion(normalization: .minMax).fuse([
            [ScoredRow(id: 1, score: 0.9), ScoredRow(id: 2, score: 0.5), ScoredRow(id: 3, score: 0.1)],
            [ScoredRow(id: 1, score: 12), ScoredRow(id: 4, score: 2)],
        ])
        #expect(fused.map(\.id) == [1, 2, 4, 3])
        #expect(fused[0] == FusedRow(id: 1, score: 1, ranks: [1, 1]))
        #expect(abs(fused[1].score - 0.25) < 1e-6)  // (0.5 + 0) / 2, 0.5 as a Float
        #expect(fused[2].ranks == [nil, 2])
    }

    @Test("a weight near Double's largest still gives finite scores, ordered by that list")
    func hugeWeight() {
        // Found by the serve fuzz target: `--keyword-weight 1e308` with a shallow scale made `w·norm` overflow to
        // -∞, and a reply holding it could not be encoded as JSON.
        let vector = (0..<50).map { ScoredRow(id: Int64($0), score: 1 - Float($0) / 25) }
        let keyword = (0..<50).map { ScoredRow(id: Int64(2 * $0), score: Float(50 - $0) * 3.25) }
        for normalization in ScoreFusion.Normalization.allCases {
            let fused = ScoreFusion(normalization: normalization, weights: [1, 1e308], statisticsDepth: 2)
                .fuse([vector, keyword])
            #expect(fused.allSatisfy { $0.score.isFinite }, "\(normalization)")
            #expect(fused.prefix(3).map(\.id) == [0, 2, 4], "\(normalization)")
        }
    }

    @Test("a list whose scores are all equal adds nothing to the order")
    func flatList() {
        let fused = ScoreFusion(normalization: .zScore).fuse([
            [ScoredRow(id: 5, score: 3), ScoredRow(id: 6, score: 1)],
            [ScoredRow(id: 6, score: 7), ScoredRow(id: 5, score: 7)],
        ])
        #expect(fused.map(\.id) == [5, 6])
    }

    @Test("the scale from the best N: the head's min-max, deeper candidates below 0, missing ones at the deepest")
    func scaleFromHead() {
        let fused = ScoreFusion(normalization: .minMax, statisticsDepth: 2).fuse([
            [ScoredRow(id: 1, score: 0.9), ScoredRow(id: 2, score: 0.5), ScoredRow(id: 3, score: 0.1)],
            [ScoredRow(id: 3, score: 10), ScoredRow(id: 1, score: 6), ScoredRow(id: 4, score: 2)],
        ])
        // List 1: (s − 0.5) / 0.4 → 1, 0, −1; list 2: (s − 6) / 4 → 1, 0, −1 (4 missing from list 1: −1).
        let expected: [Int64: Double] = [1: 0.5, 2: -0.5, 3: 0, 4: -1]
        #expect(fused.map(\.id) == [1, 3, 2, 4])
        for row in fused { #expect(abs(row.score - expected[row.id]!) < 1e-6) }
    }

    @Test("random lists: fused scores equal a naive convex combination, best first", arguments: [1, 2, 3, 4])
    func againstNaive(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        func uniform() -> Float { Float(random.next() % 10_000) / 100 }
        for normalization in ScoreFusion.Normalization.allCases {
            let lists = (0..<2).map { _ in
                Array(Set((0..<30).map { _ in Int64(random.next() % 60) })).map { ScoredRow(id: $0, score: uniform()) }
                    .sorted { $0.ranks(before: $1) }
            }
            let weights = [1.0, Double(random.next() % 300) / 100]
            let head = random.next() % 2 == 0 ? nil : Int(random.next() % 30) + 2
            let fused = ScoreFusion(normalization: normalization, weights: weights, statisticsDepth: head).fuse(lists)
            // Naive: normalise each list by its head's statistics, missing → the list's lowest normalised value,
            // weighted mean.
            var expected: [Int64: Double] = [:]
            let ids = Set(lists.flatMap { $0.map(\.id) })
            for (list, rows) in lists.enumerated() {
                let all = rows.map { Double($0.score) }
                let scores = head.map { Array(all.prefix($0)) } ?? all
                let mean = scores.reduce(0, +) / Double(scores.count)
                let deviation = (scores.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(scores.count))
                    .squareRoot()
                func norm(_ s: Double) -> Double {
                    normalization == .minMax
                        ? (s - scores.min()!) / (scores.max()! - scores.min()!) : (s - mean) / deviation
                }
                let floor = all.map(norm).min()!
                for id in ids {
                    let value = rows.first { $0.id == id }.map { norm(Double($0.score)) } ?? floor
                    expected[id, default: 0] += weights[list] * value / weights.reduce(0, +)
                }
            }
            #expect(fused.count == ids.count)
            for row in fused { #expect(abs(row.score - expected[row.id]!) < 1e-9) }
            #expect(zip(fused, fused.dropFirst()).allSatisfy { $0.score >= $1.score })
        }
    }
}
