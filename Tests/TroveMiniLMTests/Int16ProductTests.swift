import CTroveGEMM
import Foundation
import Testing
import TroveBLAS

import TroveTestTraits

/// The int16 products (`trove_int16_pack`, `trove_int16_rows`, `trove_int16_gemm`) against Double arithmetic on the
/// same quantized inputs, on the bf16 tests' shapes, which leave every remainder of the kernel's six-row groups,
/// 16-column panels, 8-column vectors, 64-pair blocks and odd inner lengths (a zero pad), and the model's own 384 and
/// 1536; and the attention head in int16 (`trove_int16_head_scores`, `_softmax`, `_mix`).
@Suite("int16 products", .offCooperativePool)
struct Int16ProductTests {
    static let levels = Double(TROVE_INT16_LEVELS)

    /// The packed W read back: quantized values and column scales.
    static func unpack(_ packed: [UInt8], n: Int, k: Int) -> (weights: [[Int]], scales: [Double]) {
        let kp = (k + 1) / 2 * 2, panelBytes = 16 * 2 * kp + 16 * 4
        func load<T>(_ offset: Int, as: T.Type) -> T {
            packed[offset..<(offset + MemoryLayout<T>.size)].withUnsafeBytes { $0.loadUnaligned(as: T.self) }
        }
        var weights = [[Int]](repeating: [], count: n), scales = [Double]()
        for j in 0..<n {
            let base = (j / 16) * panelBytes, column = j % 16
            weights[j] = (0..<kp).map { p in
                Int(load(base + 2 * (((p / 2) * 16 + column) * 2 + p % 2), as: Int16.self))
            }
            scales.append(Double(load(base + 16 * 2 * kp + 4 * column, as: Float.self)))
        }
        return (weights, scales)
    }

    /// `trove_int16_rows`' output read back as values and scales.
    static func quantize(_ a: [Float], m: Int, k: Int, lda: Int) -> (rows: [Int16], values: [Int], scales: [Double]) {
        let kp = (k + 1) / 2 * 2
        var rows = [Int16](repeating: 0x5555, count: m * kp + 1)
        var scales = [Float](repeating: 0, count: m)
        trove_int16_rows(Int32(m), Int32(k), a, Int32(lda), &rows, &scales)
        return (rows, rows.prefix(m * kp).map(Int.init), scales.map(Double.init))
    }

    @Test("weights: symmetric per column, max |w| to ±4095; the pad and an all-zero column stay zero")
    func packing() {
        let n = 37, k = 41, ldw = k + 2
        var w = (0..<(n * ldw)).map { Float(cos(Double($0) * 0.23)) * Float($0 % 5 + 1) }
        for p in 0..<k { w[3 * ldw + p] = 0 }
        var packed = [UInt8](repeating: 0xAA, count: trove_int16_packed_bytes(Int32(n), Int32(k)))
        trove_int16_pack(Int32(n), Int32(k), w, Int32(ldw), &packed)
        let (weights, scales) = Self.unpack(packed, n: n, k: k)
        for j in 0..<n {
            let row = (0..<k).map { Double(w[j * ldw + $0]) }
            let largest = row.map(abs).max()!
            #expect(abs(scales[j] - largest / Self.levels) <= 1e-7 * largest, "column \(j)")
            #expect(weights[j][k] == 0, "column \(j): the pad")
            #expect(weights[j].map(abs).max()! == (largest > 0 ? Int(Self.levels) : 0), "column \(j)")
            for p in 0..<k where largest > 0 {
                #expect(abs(Double(weights[j][p]) - row[p] / scales[j]) <= 0.5 + 1e-3, "column \(j), \(p)")
            }
            if j == 3 { #expect(weights[j].allSatisfy { $0 == 0 } && scales[j] == 0) }
        }
    }

    @Test(
        "rows: symmetric per row, max |a| to ±4095, rounded; the odd pad a zero, nothing past the rows",
        .enabled(if: CPU.hasAVX2, "this CPU has no AVX2"))
    func rows() {
        for k in [1, 2, 7, 8, 9, 16, 17, 33, 384, 1537] {
            let m = 3, lda = k + 5, kp = (k + 1) / 2 * 2
            var a = (0..<(m * lda)).map { Float(sin(Double($0) * 0.37)) * 1000 }
            for p in 0..<k { a[2 * lda + p] = 0 }  // an all-zero row: scale 0, values 0
            let (rows, values, scales) = Self.quantize(a, m: m, k: k, lda: lda)
            for r in 0..<m {
                let row = (0..<k).map { Double(a[r * lda + $0]) }
                let largest = row.map(abs).max()!
                #expect(abs(scales[r] - largest / Self.levels) <= 1e-7 * largest, "k \(k) row \(r)")
                for p in 0..<kp {
                    let value = values[r * kp + p]
                    if p >= k || largest == 0 {
                        #expect(value == 0, "k \(k) at \(r), \(p)")
                    } else {
                        #expect(abs(Double(value) - row[p] / scales[r]) <= 0.5 + 1e-3, "k \(k) at \(r), \(p)")
                        #expect(abs(value) <= Int(Self.levels))
                    }
                }
            }
            #expect(rows[m * kp] == 0x5555, "k \(k): wrote past the rows")
        }
    }

    /// The product's two builds: AVX2's `VPMADDWD` + `VPADDD` and AVX-VNNI's `VPDPWSSD`.
    enum Build: String, CaseIterable, CustomTestStringConvertible {
        case avx2, avxVNNI

        var testDescription: String { rawValue }
        var isSupported: Bool { self == .avx2 ? CPU.hasAVX2 : CPU.hasAVXVNNI }
        var gemm:
            @convention(c) (
                Int32, Int32, Int32, UnsafePointer<Int16>?, UnsafePointer<Float>?, UnsafeRawPointer?,
                UnsafePointer<Float>?, UnsafeMutablePointer<Float>?, Int32
            ) -> Void
        { self == .avx2 ? trove_int16_gemm_avx2 : trove_int16_gemm_avxvnni }

        /// Whether this CPU runs the build; prints the skip when not.
        func runs(_ test: String) -> Bool {
            if !isSupported { print("SKIP \(test) (\(rawValue)): this CPU lacks its instructions") }
            return isSupported
        }
    }

    static let shapes: [(m: Int, n: Int, k: Int)] = [
        (1, 1, 1), (1, 17, 384), (2, 15, 3), (3, 16, 31), (4, 63, 2), (5, 64, 100), (6, 65, 384), (7, 130, 9),
        (8, 1, 1536), (11, 47, 47), (12, 128, 384), (13, 129, 1537), (17, 33, 64), (6, 24, 129), (7, 9, 257),
    ]

    @Test("six rows of A against 16-column panels, every tail, whole and from a later panel", arguments: Build.allCases)
    func products(_ build: Build) {
        guard build.runs("products") else { return }
        for (m, n, k) in Self.shapes {
            let lda = k + 3, ldw = k + 5, ldc = n + 2, kp = (k + 1) / 2 * 2
            let a = (0..<(m * lda)).map { Float(sin(Double($0) * 0.61)) }
            let w = (0..<(n * ldw)).map { Float(cos(Double($0) * 0.23)) }
            var packed = [UInt8](repeating: 0, count: trove_int16_packed_bytes(Int32(n), Int32(k)))
            trove_int16_pack(Int32(n), Int32(k), w, Int32(ldw), &packed)
            let (weights, columnScales) = Self.unpack(packed, n: n, k: k)
            let (rows, values, rowScales) = Self.quantize(a, m: m, k: k, lda: lda)
            let start = (0..<(m * ldc)).map { Float($0 % 7) * 0.1 }
            let panelBytes = trove_int16_packed_bytes(16, Int32(k))
            // A bias of one value a column, added as the tile is stored.
            let bias = (0..<n).map { Float($0 % 5) * 0.3 - 0.6 }
            for withBias in [false, true] {
                // Whole, and (as a lane does) from the second panel on.
                for firstPanel in n > 16 ? [0, 1] : [0] {
                    let first = firstPanel * 16
                    var c = start
                    var scales = rowScales.map(Float.init)
                    packed.withUnsafeBytes { packed in
                        c.withUnsafeMutableBufferPointer { c in
                            bias.withUnsafeBufferPointer { bias in
                                build.gemm(
                                    Int32(m), Int32(n - first), Int32(k), rows, &scales,
                                    packed.baseAddress! + firstPanel * panelBytes,
                                    withBias ? bias.baseAddress! + first : nil,
                                    c.baseAddress! + first, Int32(ldc))
                            }
                        }
                    }
                    for r in 0..<m {
                        for j in 0..<ldc {
                            guard j >= first, j < n else {
                                #expect(c[r * ldc + j] == start[r * ldc + j], "wrote outside columns \(first)..<\(n)")
                                continue
                            }
                            // The integer sum is exact; its scaling is fp32's.
                            var dot = 0
                            for p in 0..<kp { dot += values[r * kp + p] * weights[j][p] }
                            var sum = Double(dot) * rowScales[r] * columnScales[j]
                            if withBias { sum += Double(bias[j]) }
                            #expect(
                                abs(Double(c[r * ldc + j]) - sum) < 1e-5 * (1 + abs(sum)),
                                "m \(m) n \(n) k \(k) bias \(withBias) from \(first), at \(r), \(j)")
                        }
                    }
                }
            }
        }
    }

    @Test(
        "the largest sums stay exact: every value at ±4095 over 1536 (24 blocks of 64 pairs), no int32 overflow",
        arguments: Build.allCases)
    func largestSums(_ build: Build) {
        guard build.runs("largestSums") else { return }
        let m = 6, n = 16, k = 1536
        // Alternating signs in A, matching ones in W's first column: every product +4095², the sum 1536·4095².
        let a = (0..<(m * k)).map { Float($0 % 2 == 0 ? 1 : -1) }
        let w = (0..<(n * k)).map { index in Float(index / k == 0 ? (index % 2 == 0 ? 1 : -1) : 1) }
        var packed = [UInt8](repeating: 0, count: trove_int16_packed_bytes(Int32(n), Int32(k)))
        trove_int16_pack(Int32(n), Int32(k), w, Int32(k), &packed)
        let (rows, _, rowScales) = Self.quantize(a, m: m, k: k, lda: k)
        var scales = rowScales.map(Float.init)
        var c = [Float](repeating: 0, count: m * n)
        build.gemm(Int32(m), Int32(n), Int32(k), rows, &scales, packed, nil, &c, Int32(n))
        for r in 0..<m {
            #expect(abs(c[r * n] - 1536) < 1e-3, "row \(r): \(c[r * n])")
            #expect(abs(c[r * n + 1]) < 1e-3, "row \(r): \(c[r * n + 1])")
        }
    }

    @Test(
        "an attention head: six-row tiles, 8-key blocks, 64-pair blocks of the mix, every tail, head sizes 16 to 48",
        .enabled(if: CPU.hasAVX2, "this CPU has no AVX2"))
    func head() {
        let scale = 1.442_695_04 / Float(32).squareRoot()
        for d in [16, 32, 48] {
            for n in [1, 2, 3, 5, 6, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 128, 129, 130, 199, 200, 257] {
                // Q, K and V side by side in each row, as the QKV product leaves them; rows and out wider than a head.
                let ld = 3 * d + 2, ldo = d + 3, sentinel: Float = -7
                let qkv = (0..<(n * ld)).map { Float(3 * sin(Double($0) * 0.37) + cos(Double($0) * 0.011)) }
                var scores = [Float](repeating: sentinel, count: n * n + 1)
                var inverseSums = [Float](repeating: sentinel, count: n + 1)
                var out = [Float](repeating: sentinel, count: n * ldo)
                var scratch = [UInt8](repeating: 0xAA, count: trove_int16_head_scratch(Int32(n), Int32(d)))
                qkv.withUnsafeBufferPointer { qkv in
                    let q = qkv.baseAddress!
                    trove_int16_head_scores(Int32(n), Int32(d), scale, q, q + d, Int32(ld), &scores, &scratch)
                    trove_int16_head_softmax(Int32(n), scores, &inverseSums, &scratch)
                    trove_int16_head_mix(Int32(n), Int32(d), inverseSums, q + 2 * d, Int32(ld), &out, Int32(ldo), &scratch)
                }
                #expect(scores[n * n] == sentinel && inverseSums[n] == sentinel, "n \(n) d \(d): wrote past them")
                // The scores: exact int32 sums of Q's and K's rows quantized as trove_int16_rows does, then scaled.
                let (_, qValues, qScales) = Self.quantize(qkv, m: n, k: d, lda: ld)
                let (_, kValues, kScales) = Self.quantize(Array(qkv.dropFirst(d)) + Array(repeating: 0, count: d), m: n, k: d, lda: ld)
                for i in 0..<n {
                    for j in 0..<n {
                        let sum = (0..<d).reduce(0) { $0 + qValues[i * d + $1] * kValues[j * d + $1] }
                        let expected = Double(sum) * qScales[i] * Double(scale) * kScales[j]
                        let found = Double(scores[i * n + j])
                        #expect(
                            abs(found - expected) <= 1e-6 * (1 + abs(expected)),
                            "n \(n) d \(d): score \(i), \(j): \(found) against \(expected)")
                    }
                }
                // V per column, as the mix quantizes it: its scale and the worst rounding of a value.
                let vScales = (0..<d).map { c in (0..<n).map { abs(Double(qkv[$0 * ld + 2 * d + c])) }.max()! / Self.levels }
                expectHead(out, n: n, d: d, ldo: ldo, sentinel: sentinel, "n \(n) d \(d)") { i in
                    let row = (0..<n).map { Double(scores[i * n + $0]) }
                    let largest = row.max()!
                    let powers = row.map { Foundation.exp2($0 - largest) }
                    let total = powers.reduce(0, +)
                    #expect(
                        abs(Double(inverseSums[i]) - 1 / total) <= 1e-5 / total,
                        "n \(n) d \(d) row \(i): 1 / sum \(inverseSums[i]) against \(1 / total)")
                    return (0..<d).map { c in
                        var expected = 0.0, bound = 0.0
                        for j in 0..<n {
                            let value = Double(qkv[j * ld + 2 * d + c])
                            expected += powers[j] * value
                            // A weight to 1/4095 (half a step, and the polynomial's 1e-6), a value to half its step.
                            bound += (0.5 / Self.levels + 1e-6) * abs(value) + powers[j] * 0.5 * vScales[c]
                        }
                        return (expected / total, bound / total + 1e-5)
                    }
                }
            }
        }
    }
}
