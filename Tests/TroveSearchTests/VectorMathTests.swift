import Testing
import TroveSearch
import TroveTestSupport

@Suite("vector math")
struct VectorMathTests {
    @Test("normalized vectors have unit length at any scale", arguments: [Float(1e-30), 1e-3, 1, 1e3, 1e30])
    func normalizedIsUnit(scale: Float) {
        var rng = SplitMix64(seed: 3)
        for dimension in [1, 2, 7, 384, 768] {
            let v = (0..<dimension).map { _ in rng.signedUnit() * scale }
            let n = VectorMath.normalized(v)
            #expect(VectorMath.isUnitLength(n), "dimension \(dimension)")
            #expect(abs(VectorMath.norm(n) - 1) < 1e-6)
        }
    }

    @Test("a zero vector stays zero")
    func zeroStaysZero() {
        #expect(VectorMath.normalized([0, 0, 0]) == [0, 0, 0])
        #expect(VectorMath.normalized([]) == [])
        #expect(!VectorMath.isUnitLength([0, 0]))
    }

    @Test("dot matches a naive loop; isUnitLength rejects non-finite and long vectors")
    func dotAndValidation() {
        var rng = SplitMix64(seed: 11)
        for dimension in [0, 1, 9, 384] {
            let a = (0..<dimension).map { _ in rng.signedUnit() }
            let b = (0..<dimension).map { _ in rng.signedUnit() }
            let naive = zip(a, b).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
            #expect(abs(Double(VectorMath.dot(a, b)) - naive) < 1e-4)
        }
        #expect(VectorMath.isUnitLength([0.6, 0.8]))
        #expect(!VectorMath.isUnitLength([0.6, 0.81]))
        #expect(!VectorMath.isUnitLength([.nan, 1]))
        #expect(!VectorMath.isUnitLength([.infinity]))
        #expect(VectorMath.normalized([.nan, 1]).contains { $0.isNaN })
    }
}
