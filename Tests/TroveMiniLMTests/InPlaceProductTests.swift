import CTroveGEMM
import Foundation
import Testing
import TroveBLAS

import TroveTestTraits

/// The in-place products of a short batch (`trove_sgemm_nt_avx2`, `trove_sgemm_nt_avx512`) against plain Double
/// arithmetic, on shapes whose rows, columns and inner length leave every remainder each kernel's blocks leave.
@Suite("In-place products", .offCooperativePool)
struct InPlaceProductTests {
    typealias Kernel = @convention(c) (
        Int32, Int32, Int32, UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32,
        UnsafeMutablePointer<Float>?, Int32
    ) -> Void

    /// m query rows, n rows of W, k inner: 1…33 rows (five-row and four-row groups and every tail), columns that are
    /// not a multiple of 3 or 4, inner lengths that are not a multiple of 8 or 16, and the model's own 384 and 1536.
    static let shapes: [(m: Int, n: Int, k: Int)] = [
        (1, 1, 1), (1, 7, 384), (2, 5, 17), (3, 12, 31), (4, 4, 16), (5, 13, 100), (6, 25, 384), (7, 3, 9),
        (9, 8, 1536), (13, 11, 47), (20, 24, 384), (20, 36, 1536), (32, 9, 200), (33, 14, 63),
    ]

    func check(_ kernel: Kernel) {
        for (m, n, k) in Self.shapes {
            for (withBias, accumulate) in [(false, false), (true, false), (true, true)] {
                // Strides wider than the rows, so a kernel that assumed packed rows would read the wrong numbers.
                let lda = k + 3, ldw = k + 5, ldc = n + 2
                let a = (0..<(m * lda)).map { Float(sin(Double($0) * 0.61)) }
                let w = (0..<(n * ldw)).map { Float(cos(Double($0) * 0.23)) }
                let bias = (0..<n).map { Float($0 % 5) * 0.25 - 0.5 }
                let start = (0..<(m * ldc)).map { Float($0 % 7) * 0.1 }
                var c = start
                kernel(
                    Int32(m), Int32(n), Int32(k), a, Int32(lda), w, Int32(ldw), withBias ? bias : nil,
                    accumulate ? 1 : 0, &c, Int32(ldc))
                for r in 0..<m {
                    for j in 0..<ldc {
                        guard j < n else {
                            #expect(c[r * ldc + j] == start[r * ldc + j], "wrote past column \(n)")
                            continue
                        }
                        var sum = 0.0
                        for p in 0..<k { sum += Double(a[r * lda + p]) * Double(w[j * ldw + p]) }
                        if withBias { sum += Double(bias[j]) }
                        if accumulate { sum += Double(start[r * ldc + j]) }
                        #expect(
                            abs(Double(c[r * ldc + j]) - sum) < 1e-4 * (1 + abs(sum)),
                            "m \(m) n \(n) k \(k) bias \(withBias) accumulate \(accumulate), at \(r), \(j)")
                    }
                }
            }
        }
    }

    @Test("AVX2: four rows of A against three of W, every tail", .enabled(if: CPU.hasAVX2, "this CPU has no AVX2"))
    func avx2() { check(trove_sgemm_nt_avx2) }

    @Test("AVX-512: five rows of A against four of W, every tail", .enabled(if: CPU.hasAVX512, "this CPU has no AVX-512"))
    func avx512() { check(trove_sgemm_nt_avx512) }
}
