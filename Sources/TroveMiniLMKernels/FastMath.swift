/// Vectorisable `exp` and GELU over arrays: libm's `expf`/`tanhf` would cost as much as the matrix products.
/// Written as plain scalar loops with no calls or branches so LLVM vectorises them; Swift's generic SIMD types
/// fall back to per-element loops for min/max and float→int conversion here, which was 3× slower.
package enum FastMath {
    /// e^x to ~2 ulp for x in [-87, 88] (Cephes' range reduction and polynomial); clamped outside.
    @inline(__always)
    package static func exp(_ x: Float) -> Float {
        let clamped = Swift.max(Swift.min(x, 88.3), -87.3)
        // Round to nearest with the 1.5·2²³ trick: the sum's low mantissa bits then hold n as an integer.
        let shifted = clamped * 1.442_695_04 + 12_582_912
        let n = shifted - 12_582_912
        // Two-step ln 2 keeps r exact enough.
        var r = clamped - n * 0.693_359_375
        r = r + n * 2.121_944_4e-4
        var p: Float = 1.987_569_1e-4
        p = p * r + 1.398_199_9e-3
        p = p * r + 8.333_451_9e-3
        p = p * r + 4.166_579_6e-2
        p = p * r + 1.666_666_5e-1
        p = p * r + 5.000_000_1e-1
        p = p * (r * r) + r + 1
        let integer = shifted.bitPattern &- 0x4B40_0000
        return p * Float(bitPattern: (integer &+ 127) &<< 23)
    }

    /// `values[i] = exp(values[i])`.
    package static func expInPlace(_ values: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { values[i] = exp(values[i]) }
    }

    /// 2^x to ~1 ulp for x in [-126, 127] (Cephes' exp2f polynomial on [-½, ½]); clamped outside. Cheaper than
    /// `exp`: no ln 2 range reduction, so callers fold log₂e into constants they multiply by anyway.
    @inline(__always)
    package static func exp2(_ x: Float) -> Float {
        let clamped = Swift.max(Swift.min(x, 127), -126)
        let shifted = clamped + 12_582_912
        let r = clamped - (shifted - 12_582_912)
        var p: Float = 1.535_336_2e-4
        p = p * r + 1.339_887_4e-3
        p = p * r + 9.618_437_4e-3
        p = p * r + 5.550_332_5e-2
        p = p * r + 2.402_264_8e-1
        p = p * r + 6.931_472_0e-1
        p = p * r + 1
        let integer = shifted.bitPattern &- 0x4B40_0000
        return p * Float(bitPattern: (integer &+ 127) &<< 23)
    }

    /// `values[i] = 2^(values[i] - shift)`.
    package static func exp2ShiftedInPlace(_ values: UnsafeMutablePointer<Float>, count: Int, shift: Float) {
        for i in 0..<count { values[i] = exp2(values[i] - shift) }
    }

    /// GELU with the tanh approximation (what GGML, hence Ollama, computes): x·σ(2·√(2/π)·(x + 0.044715x³)).
    @inline(__always)
    package static func gelu(_ x: Float) -> Float {
        let u = x * (x * x * 0.044_715 + 1) * -2.302_208_2  // -2·√(2/π)·log₂e
        return x / (exp2(u) + 1)
    }

    /// `values[i] = gelu(values[i])`.
    package static func geluInPlace(_ values: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { values[i] = gelu(values[i]) }
    }
}
