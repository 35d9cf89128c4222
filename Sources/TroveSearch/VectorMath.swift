/// Small vector helpers.
package enum VectorMath {
    /// `v / ‖v‖`; a zero vector stays zero.
    package static func normalized(_ v: [Float]) -> [Float] {
        // Accumulate in Double: squaring Floats overflows near 1e19 and loses digits over long vectors.
        var sum = 0.0
        for x in v { sum += Double(x) * Double(x) }
        // Only an exact zero maps to zero; NaN or infinity propagates so `isUnitLength` can catch it.
        if sum == 0 { return v.map { _ in 0 } }
        let norm = sum.squareRoot()
        return v.map { Float(Double($0) / norm) }
    }

    /// The dot product of two vectors of equal length.
    package static func dot(_ a: [Float], _ b: [Float]) -> Float {
        precondition(a.count == b.count, "dot of vectors of length \(a.count) and \(b.count)")
        guard !a.isEmpty else { return 0 }
        // The scan's own kernel, so a single dot agrees with the searcher's scores.
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                ScanKernel.best.dot(a.baseAddress!, b.baseAddress!, dimension: a.count)
            }
        }
    }

    /// The Euclidean length `‖v‖`.
    package static func norm(_ v: [Float]) -> Float {
        var sum = 0.0
        for x in v { sum += Double(x) * Double(x) }
        return Float(sum.squareRoot())
    }

    /// Whether every component is finite and `|‖v‖ − 1| <= tolerance`.
    package static func isUnitLength(_ v: [Float], tolerance: Float = 1e-4) -> Bool {
        guard v.allSatisfy(\.isFinite) else { return false }
        return abs(norm(v) - 1) <= tolerance
    }
}
