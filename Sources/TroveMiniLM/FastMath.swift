/// Vectorised `exp` and GELU: libm's scalar `expf`/`tanhf` would cost as much as the matrix products.
enum FastMath {
    typealias Vector = SIMD16<Float>

    /// e^x to ~2 ulp for x in [-87, 88] (Cephes' range reduction and polynomial); below that, 0.
    @inline(__always)
    static func exp(_ x: Vector) -> Vector {
        let clamped = x.clamped(lowerBound: Vector(repeating: -87.3), upperBound: Vector(repeating: 88.3))
        let n = (clamped * 1.442_695_04).rounded(.toNearestOrEven)
        // Two-step ln 2 keeps r exact enough.
        var r = clamped - n * 0.693_359_375
        r = r + n * 2.121_944_4e-4
        var p = Vector(repeating: 1.987_569_1e-4)
        p = p * r + 1.398_199_9e-3
        p = p * r + 8.333_451_9e-3
        p = p * r + 4.166_579_6e-2
        p = p * r + 1.666_666_5e-1
        p = p * r + 5.000_000_1e-1
        p = p * (r * r) + r + 1
        let exponent = (SIMD16<Int32>(n, rounding: .towardZero) &+ 127) &<< 23
        return p * unsafeBitCast(exponent, to: Vector.self)
    }

    /// `values[i] = exp(values[i])`.
    static func expInPlace(_ values: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        let raw = UnsafeMutableRawPointer(values)
        while i + 16 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * 4, as: Vector.self)
            raw.storeBytes(of: exp(v), toByteOffset: i * 4, as: Vector.self)
            i += 16
        }
        if i < count {
            var tail = Vector(repeating: 0)
            for j in i..<count { tail[j - i] = values[j] }
            let result = exp(tail)
            for j in i..<count { values[j] = result[j - i] }
        }
    }

    /// GELU with the tanh approximation (what GGML, hence Ollama, computes): x·σ(2·√(2/π)·(x + 0.044715x³)).
    @inline(__always)
    static func gelu(_ x: Vector) -> Vector {
        let u = x * (x * x * 0.044_715 + 1) * -1.595_769_1  // -2·√(2/π)
        return x / (exp(u) + 1)
    }

    /// `values[i] = gelu(values[i])`.
    static func geluInPlace(_ values: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        let raw = UnsafeMutableRawPointer(values)
        while i + 16 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * 4, as: Vector.self)
            raw.storeBytes(of: gelu(v), toByteOffset: i * 4, as: Vector.self)
            i += 16
        }
        if i < count {
            var tail = Vector(repeating: 0)
            for j in i..<count { tail[j - i] = values[j] }
            let result = gelu(tail)
            for j in i..<count { values[j] = result[j - i] }
        }
    }
}
