import TroveSearch
import TroveTestSupport

/// Vector helpers on the shared seeded generator.
extension SplitMix64 {
    /// Uniform in [-1, 1).
    mutating func signedUnit() -> Float {
        Float(next() >> 40) / Float(1 << 23) - 1
    }

    /// A unit-length random vector.
    mutating func unitVector(dimension: Int) -> [Float] {
        VectorMath.normalized((0..<dimension).map { _ in signedUnit() })
    }

    /// Small multiples of 1/4: every dot product of these is exact in Float, whatever the summation order,
    /// so BLAS and the naive loop agree bit for bit and ties are real ties.
    mutating func quantizedVector(dimension: Int, levels: Int = 3) -> [Float] {
        (0..<dimension).map { _ in Float(Int(next() % UInt64(2 * levels + 1)) - levels) / 4 }
    }

    /// Distinct ids in shuffled order, so "ascending id" differs from "row order".
    mutating func shuffledIDs(count: Int) -> [Int64] {
        var ids = (0..<count).map { Int64($0) * 7 + 3 }
        ids.shuffle(using: &self)
        return ids
    }
}

/// Test data builders.
enum Fixture {
    /// N random unit rows of dimension d with shuffled ids.
    static func unitMatrix(rows: Int, dimension: Int, using rng: inout SplitMix64) -> VectorMatrix {
        var values = [Float]()
        values.reserveCapacity(rows * dimension)
        for _ in 0..<rows { values += rng.unitVector(dimension: dimension) }
        return VectorMatrix(dimension: dimension, rowIDs: rng.shuffledIDs(count: rows), values: values)
    }

    /// N quantized rows, about a third of them copies of earlier rows so scores tie exactly.
    static func quantizedMatrix(rows: Int, dimension: Int, levels: Int = 3, using rng: inout SplitMix64)
        -> VectorMatrix
    {
        var values = [Float]()
        values.reserveCapacity(rows * dimension)
        for row in 0..<rows {
            if row > 0, rng.next() % 3 == 0 {
                let source = Int(rng.next() % UInt64(row))
                values += values[(source * dimension)..<(source * dimension + dimension)]
            } else {
                values += rng.quantizedVector(dimension: dimension, levels: levels)
            }
        }
        return VectorMatrix(dimension: dimension, rowIDs: rng.shuffledIDs(count: rows), values: values)
    }
}
