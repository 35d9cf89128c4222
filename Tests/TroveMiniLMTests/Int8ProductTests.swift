import CTroveGEMM
import Foundation
import Testing
import TroveBLAS

import TroveTestTraits

/// The int8 products (`trove_int8_pack`, `trove_int8_outliers`, `trove_int8_rows`, `trove_int8_gemm`) against Double
/// arithmetic on the same quantized inputs, on the bf16 tests' shapes, which leave every remainder of the kernel's six-row groups,
/// 64-column panels, 16-column vectors and 4-deep quads (a zero pad), and the model's own 384 and 1536.
@Suite("int8 products", .offCooperativePool)
struct Int8ProductTests {
    /// The packed W read back: (quantized value, column scale) for column j, position p.
    static func unpack(_ packed: [UInt8], n: Int, k: Int) -> (weights: [[Int]], scales: [Double], sums: [Int]) {
        let kq = (k + 3) / 4, panelBytes = 64 * 4 * kq + 64 * 8
        var weights = [[Int]](repeating: [], count: n), scales = [Double](), sums = [Int]()
        for j in 0..<n {
            let base = (j / 64) * panelBytes, column = j % 64
            weights[j] = (0..<k).map { p in Int(Int8(bitPattern: packed[base + ((p / 4) * 64 + column) * 4 + p % 4])) }
            let tail = base + 64 * 4 * kq
            let scale = packed[(tail + 4 * column)..<(tail + 4 * column + 4)].withUnsafeBytes {
                $0.loadUnaligned(as: Float.self)
            }
            let sum = packed[(tail + 256 + 4 * column)..<(tail + 260 + 4 * column)].withUnsafeBytes {
                $0.loadUnaligned(as: Int32.self)
            }
            scales.append(Double(scale))
            sums.append(Int(sum))
        }
        return (weights, scales, sums)
    }

    @Test("weights: symmetric per column, max |w| to ±127, the sums beside them; an all-zero column stays zero")
    func packing() {
        let n = 70, k = 37, ldw = k + 2
        var w = (0..<(n * ldw)).map { Float(cos(Double($0) * 0.23)) * Float($0 % 5 + 1) }
        for p in 0..<k { w[3 * ldw + p] = 0 }
        var packed = [UInt8](repeating: 0xAA, count: trove_int8_packed_bytes(Int32(n), Int32(k)))
        trove_int8_pack(Int32(n), Int32(k), w, Int32(ldw), &packed)
        let (weights, scales, sums) = Self.unpack(packed, n: n, k: k)
        for j in 0..<n {
            let row = (0..<k).map { Double(w[j * ldw + $0]) }
            let largest = row.map(abs).max()!
            #expect(abs(scales[j] - largest / 127) <= 1e-7 * largest, "column \(j)")
            #expect(sums[j] == weights[j].reduce(0, +), "column \(j)")
            for p in 0..<k where largest > 0 {
                #expect(abs(Double(weights[j][p]) - row[p] / scales[j]) <= 0.5 + 1e-4, "column \(j), \(p)")
            }
            if j == 3 { #expect(weights[j].allSatisfy { $0 == 0 } && scales[j] == 0) }
        }
    }

    @Test("outliers: the columns of the largest |a| in the batch, ascending")
    func outliers() {
        let m = 5, k = 40, lda = 43
        var a = (0..<(m * lda)).map { Float(sin(Double($0) * 0.7)) }
        // Columns 33, 2 and 17 hold the largest values, one of them negative and in one row only.
        a[1 * lda + 33] = 9
        a[4 * lda + 2] = -8
        a[0 * lda + 17] = 7
        a[2 * lda + 41] = 100  // beyond k: never read
        var columns = [Int32](repeating: -1, count: 4)
        trove_int8_outliers(Int32(m), Int32(k), a, Int32(lda), 3, &columns)
        #expect(columns == [2, 17, 33, -1])
    }

    @Test(
        "rows: each row's range to 0…255 without its outliers, which are kept in fp32",
        .enabled(if: CPU.hasAVX512, "this CPU has no AVX-512"))
    func rows() {
        for k in [1, 2, 3, 4, 5, 15, 16, 17, 33, 384, 1537] {
            let m = 3, lda = k + 5, kp = (k + 3) / 4 * 4
            var a = (0..<(m * lda)).map { Float(sin(Double($0) * 0.37)) * 10 }
            let columns: [Int32] = k > 2 ? [0, Int32(k - 1)] : []
            for r in 0..<m { for c in columns { a[r * lda + Int(c)] *= 50 } }
            var out = [UInt8](repeating: 0xEE, count: m * kp + 1)
            var scales = [Float](repeating: 0, count: m), offsets = scales
            var kept = [Float](repeating: 0, count: m * max(columns.count, 1))
            trove_int8_rows(
                Int32(m), Int32(k), a, Int32(lda), Int32(columns.count), columns, &out, &scales, &offsets, &kept)
            for r in 0..<m {
                var row = (0..<k).map { Double(a[r * lda + $0]) }
                for (c, column) in columns.enumerated() {
                    #expect(Double(kept[r * columns.count + c]) == row[Int(column)])
                    row[Int(column)] = 0
                }
                let low = row.min()!, high = row.max()!
                #expect(Double(offsets[r]) == low && abs(Double(scales[r]) - (high - low) / 255) <= 1e-6 * (high - low))
                for p in 0..<k {
                    let q = Double(out[r * kp + p])
                    let error = abs(q * Double(scales[r]) + low - row[p])
                    #expect(error <= Double(scales[r]) * 0.5001, "k \(k) at \(r), \(p)")
                }
            }
            #expect(out[m * kp] == 0xEE, "wrote past the rows")
        }
    }

    @Test(
        "six rows of A against 64-column panels with outliers, every tail, whole and from a later panel",
        .enabled(if: CPU.hasAVX512VNNI, "this CPU has no AVX-512 VNNI"))
    func products() {
        for (m, n, k) in BF16ProductTests.shapes {
            // Every 13th value of A twenty times the rest: outliers, as the encoder's hidden states have.
            let count = min(Int(TROVE_INT8_OUTLIERS), k)
            let lda = k + 3, ldw = k + 5, ldc = n + 2, kp = (k + 3) / 4 * 4
            let a = (0..<(m * lda)).map { Float(sin(Double($0) * 0.61)) * ($0 % 13 == 0 ? 20 : 1) }
            let w = (0..<(n * ldw)).map { Float(cos(Double($0) * 0.23)) }
            var packed = [UInt8](repeating: 0, count: trove_int8_packed_bytes(Int32(n), Int32(k)))
            trove_int8_pack(Int32(n), Int32(k), w, Int32(ldw), &packed)
            var columns = [Int32](repeating: 0, count: count)
            trove_int8_outliers(Int32(m), Int32(k), a, Int32(lda), Int32(count), &columns)
            var gathered = [Float](repeating: .nan, count: max(count, 1) * (n + 1))
            trove_int8_gather(Int32(n), w, Int32(ldw), Int32(count), columns, &gathered, Int32(n + 1))
            var rows = [UInt8](repeating: 0, count: m * kp)
            var scales = [Float](repeating: 0, count: m), offsets = scales
            var kept = [Float](repeating: 0, count: m * max(count, 1))
            trove_int8_rows(Int32(m), Int32(k), a, Int32(lda), Int32(count), columns, &rows, &scales, &offsets, &kept)
            let (weights, columnScales, _) = Self.unpack(packed, n: n, k: k)
            let start = (0..<(m * ldc)).map { Float($0 % 7) * 0.1 }
            // A bias of one value a column, added as the tile is stored.
            let bias = (0..<n).map { Float($0 % 5) * 0.3 - 0.6 }
            for withBias in [false, true] {
                for firstPanel in n > 64 ? [0, 1] : [0] {
                    let first = firstPanel * 64
                    var c = start
                    packed.withUnsafeBytes { packed in
                        c.withUnsafeMutableBufferPointer { c in
                            bias.withUnsafeBufferPointer { bias in
                                trove_int8_gemm(
                                    Int32(m), Int32(n - first), Int32(k), rows, scales, offsets, Int32(count), kept,
                                    gathered.withUnsafeBufferPointer { $0.baseAddress! + first }, Int32(n + 1),
                                    packed.baseAddress! + firstPanel * trove_int8_packed_bytes(64, Int32(k)),
                                    withBias ? bias.baseAddress! + first : nil, c.baseAddress! + first, Int32(ldc))
                            }
                        }
                    }
                    for r in 0..<m {
                        for j in 0..<ldc {
                            guard j >= first, j < n else {
                                #expect(c[r * ldc + j] == start[r * ldc + j], "wrote outside columns \(first)..<\(n)")
                                continue
                            }
                            // The quantized row and column as the kernel sees them, then the outliers in fp32.
                            var sum = 0.0
                            for p in 0..<k {
                                let x = Double(rows[r * kp + p]) * Double(scales[r]) + Double(offsets[r])
                                sum += x * Double(weights[j][p]) * columnScales[j]
                            }
                            for o in 0..<count {
                                sum += Double(kept[r * count + o]) * Double(w[j * ldw + Int(columns[o])])
                            }
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
}
