import CTroveGEMM
import Foundation
import Testing
import TroveBLAS
import TroveMiniLMKernels

import TroveTestTraits

/// The bf16 products (`trove_bf16_pack`, `trove_bf16_rows`, `trove_bf16_gemm`, `trove_bf16_gemm_rounded`,
/// `trove_bf16_gemm_gelu`, and the attention head `trove_bf16_head`) against Double arithmetic on the same
/// bf16-rounded inputs, on shapes that leave every remainder of the kernels' row groups, column panels and 16-column
/// vectors, odd inner lengths (a zero pad) and the model's own 384 and 1536.
@Suite("bf16 products", .offCooperativePool)
struct BF16ProductTests {
    /// The value of a bf16.
    static func float(_ bf16: UInt16) -> Double { Double(Float(bitPattern: UInt32(bf16) << 16)) }

    static let shapes: [(m: Int, n: Int, k: Int)] = [
        (1, 1, 1), (1, 17, 384), (2, 15, 3), (3, 16, 31), (4, 63, 2), (5, 64, 100), (6, 65, 384), (7, 130, 9),
        (8, 1, 1536), (11, 47, 47), (12, 128, 384), (13, 129, 1537), (17, 33, 64),
    ]

    @Test("fp32 rounds to the nearest bf16, ties to even; NaN stays NaN")
    func rounding() {
        #expect(trove_bf16_round(1) == 0x3F80)
        #expect(trove_bf16_round(-2) == 0xC000)
        // 1 + 2⁻⁸ lies halfway between 1 and 1 + 2⁻⁷: to the even one, 1. Just above it: up.
        #expect(trove_bf16_round(Float(bitPattern: 0x3F80_8000)) == 0x3F80)
        #expect(trove_bf16_round(Float(bitPattern: 0x3F81_8000)) == 0x3F82)
        #expect(trove_bf16_round(Float(bitPattern: 0x3F80_8001)) == 0x3F81)
        #expect(Self.float(trove_bf16_round(.nan)).isNaN)
        #expect(trove_bf16_round(.infinity) == 0x7F80)
        #expect(trove_bf16_round(.greatestFiniteMagnitude) == 0x7F80)  // rounds up to infinity, as the hardware does
    }

    @Test(
        "rows convert like the scalar rounding, the odd pad a zero",
        .enabled(if: CPU.hasAVX512BF16, "this CPU has no AVX-512 BF16"))
    func rows() {
        for k in [1, 2, 15, 16, 17, 33, 384, 1537] {
            let m = 3, lda = k + 5, kp = (k + 1) / 2 * 2
            let a = (0..<(m * lda)).map { Float(sin(Double($0) * 0.37)) * 1000 }
            var out = [UInt16](repeating: 0xFFFF, count: m * kp + 1)
            trove_bf16_rows(Int32(m), Int32(k), a, Int32(lda), &out)
            for r in 0..<m {
                for p in 0..<kp {
                    let expected = p < k ? trove_bf16_round(a[r * lda + p]) : 0
                    #expect(out[r * kp + p] == expected, "k \(k) at \(r), \(p)")
                }
            }
            #expect(out[m * kp] == 0xFFFF, "wrote past the rows")
        }
    }

    @Test(
        "six rows of A against 64-column panels, every tail, whole and from a later panel; out in fp32, bf16, GELU and bf16",
        .enabled(if: CPU.hasAVX512BF16, "this CPU has no AVX-512 BF16"))
    func products() {
        for (m, n, k) in Self.shapes {
            let lda = k + 3, ldw = k + 5, ldc = n + 2, kp = (k + 1) / 2 * 2
            let a = (0..<(m * lda)).map { Float(sin(Double($0) * 0.61)) }
            let w = (0..<(n * ldw)).map { Float(cos(Double($0) * 0.23)) }
            var packed = [UInt16](repeating: 0, count: trove_bf16_packed_count(Int32(n), Int32(k)))
            trove_bf16_pack(Int32(n), Int32(k), w, Int32(ldw), &packed)
            var rows = [UInt16](repeating: 0, count: m * kp)
            trove_bf16_rows(Int32(m), Int32(k), a, Int32(lda), &rows)
            let start = (0..<(m * ldc)).map { Float($0 % 7) * 0.1 }
            // The inputs as the kernel sees them, rounded once.
            let aRounded = a.map { Self.float(trove_bf16_round($0)) }
            let wRounded = w.map { Self.float(trove_bf16_round($0)) }
            // A bias of one value a column, added as the tile is stored.
            let bias = (0..<n).map { Float($0 % 5) * 0.3 - 0.6 }
            for withBias in [false, true] {
                // Whole, and (as a lane does) from the second panel on.
                for firstPanel in n > 64 ? [0, 1] : [0] {
                    let first = firstPanel * 64
                    var c = start
                    // The same product stored in bf16 too: each value the fp32 one rounded, nothing else written.
                    let untouched: UInt16 = 0xABCD
                    var rounded = [UInt16](repeating: untouched, count: m * ldc)
                    var activated = rounded
                    packed.withUnsafeBufferPointer { packed in
                        bias.withUnsafeBufferPointer { bias in
                            let w = packed.baseAddress! + firstPanel * 64 * kp
                            let b = withBias ? bias.baseAddress! + first : nil
                            c.withUnsafeMutableBufferPointer { c in
                                trove_bf16_gemm(
                                    Int32(m), Int32(n - first), Int32(k), rows, w, b, c.baseAddress! + first, Int32(ldc))
                            }
                            rounded.withUnsafeMutableBufferPointer { rounded in
                                trove_bf16_gemm_rounded(
                                    Int32(m), Int32(n - first), Int32(k), rows, w, b, rounded.baseAddress! + first,
                                    Int32(ldc))
                            }
                            activated.withUnsafeMutableBufferPointer { activated in
                                trove_bf16_gemm_gelu(
                                    Int32(m), Int32(n - first), Int32(k), rows, w, b, activated.baseAddress! + first,
                                    Int32(ldc))
                            }
                        }
                    }
                    for r in 0..<m {
                        for j in 0..<ldc {
                            guard j >= first, j < n else {
                                #expect(c[r * ldc + j] == start[r * ldc + j], "wrote outside columns \(first)..<\(n)")
                                continue
                            }
                            var sum = withBias ? Double(bias[j]) : 0
                            for p in 0..<k { sum += aRounded[r * lda + p] * wRounded[j * ldw + p] }
                            #expect(
                                abs(Double(c[r * ldc + j]) - sum) < 1e-5 * (1 + abs(sum)),
                                "m \(m) n \(n) k \(k) bias \(withBias) from \(first), at \(r), \(j)")
                        }
                    }
                    // Through GELU: each value the fp32 one through the row loop's GELU, then rounded, to the bit.
                    var gelu = c
                    let zeros = [Float](repeating: 0, count: ldc)
                    RowKernels.biasGELU(&gelu, rows: m, width: ldc, bias: zeros)
                    for r in 0..<m {
                        for j in 0..<ldc {
                            let inside = j >= first && j < n
                            let expected = inside ? trove_bf16_round(c[r * ldc + j]) : untouched
                            #expect(
                                rounded[r * ldc + j] == expected,
                                "rounded: m \(m) n \(n) k \(k) bias \(withBias) from \(first), at \(r), \(j)")
                            #expect(
                                activated[r * ldc + j] == (inside ? trove_bf16_round(gelu[r * ldc + j]) : untouched),
                                "GELU: m \(m) n \(n) k \(k) bias \(withBias) from \(first), at \(r), \(j)")
                        }
                    }
                }
            }
        }
    }

    @Test(
        "an attention head: twelve-row tiles, 16- and 32-key blocks, every tail, head sizes 16 and 32",
        .enabled(if: CPU.hasAVX512BF16, "this CPU has no AVX-512 BF16"))
    func head() {
        let scale = 1.442_695_04 / Float(32).squareRoot()
        for d in [16, 32] {
            for n in [1, 2, 3, 11, 12, 13, 16, 17, 24, 31, 32, 33, 47, 48, 49, 100, 199, 200, 257] {
                // Q, K and V interleaved in each bf16 row, as the QKV product stores them; rows and out wider than a
                // head.
                let ld = 3 * d + 2, ldo = d + 3, sentinel: Float = -7
                let qkv = (0..<(n * ld)).map { Float(3 * sin(Double($0) * 0.37) + cos(Double($0) * 0.011)) }
                var qkvRounded = [UInt16](repeating: 0, count: n * ld)
                trove_bf16_rows(Int32(n), Int32(ld), qkv, Int32(ld), &qkvRounded)
                var out = [Float](repeating: sentinel, count: n * ldo)
                var scratch = [UInt16](repeating: 0xFFFF, count: trove_bf16_head_scratch(Int32(n), Int32(d)))
                qkvRounded.withUnsafeBufferPointer { qkv in
                    let q = qkv.baseAddress!
                    trove_bf16_head(Int32(n), Int32(d), scale, q, q + d, q + 2 * d, Int32(ld), &out, Int32(ldo), &scratch)
                }
                let rounded = qkv.map { Self.float(trove_bf16_round($0)) }
                expectHead(out, n: n, d: d, ldo: ldo, sentinel: sentinel, "n \(n) d \(d)") { i in
                    let scores = (0..<n).map { j in
                        Double(scale) * (0..<d).reduce(0.0) { $0 + rounded[i * ld + $1] * rounded[j * ld + d + $1] }
                    }
                    let largest = scores.max()!
                    let powers = scores.map { Foundation.exp2($0 - largest) }
                    let total = powers.reduce(0, +)
                    return (0..<d).map { c in
                        var expected = 0.0, bound = 0.0
                        for j in 0..<n {
                            let value = rounded[j * ld + 2 * d + c]
                            expected += powers[j] * value
                            // The weights are rounded to bf16 (half a unit, either way at a tie) from fp32 powers.
                            let weight = Self.float(trove_bf16_round(Float(powers[j])))
                            bound += (abs(weight - powers[j]) + 1e-5 * powers[j]) * abs(value)
                        }
                        return (expected / total, bound / total + 1e-5)
                    }
                }
            }
        }
    }
}
