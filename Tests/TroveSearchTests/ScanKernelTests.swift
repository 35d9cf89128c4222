import Glibc
import Testing
import TroveBLAS
import TroveTestSupport

@testable import TroveSearch
import TroveTestTraits

/// The warm scan's kernels (`trove_scan_avx512`, `trove_scan_avx2`, and OpenBLAS for every other CPU) against Double
/// arithmetic on every tail a kernel's vectors and four-row groups leave, and the searcher that splits the scan
/// across threads against the naive full sort. A kernel this CPU lacks is a visible skip.
@Suite("Scan kernels", .offCooperativePool)
struct ScanKernelTests {
    /// Every inner length up to 70 (each remainder of 8, 16 and 32 floats, with and without a full odd vector), the
    /// lengths around 128 and the models' 384 and 768.
    static let dimensions = Array(0...70) + [127, 128, 129, 383, 384, 385, 768]

    /// Scores `count` rows (1…9: two groups of four and every tail) starting one float past an aligned address, so
    /// no load can assume alignment, and checks each against Double and that nothing past `count` was written.
    func checkAgainstDouble(_ kernel: ScanKernel) {
        for d in Self.dimensions {
            for count in 1...9 {
                let values = (0..<(count * d + 1)).map { Float(sin(Double($0) * 0.61)) }
                let query = (0..<d).map { Float(cos(Double($0) * 0.23)) }
                var scores = [Float](repeating: 7, count: count + 1)
                values.withUnsafeBufferPointer { values in
                    query.withUnsafeBufferPointer { query in
                        scores.withUnsafeMutableBufferPointer { scores in
                            kernel.score(
                                rows: values.baseAddress! + 1, count: count, dimension: d,
                                query: query.baseAddress ?? values.baseAddress!, into: scores.baseAddress!)
                        }
                    }
                }
                #expect(scores[count] == 7, "\(kernel) wrote past row \(count) at d \(d)")
                for r in 0..<count {
                    var sum = 0.0
                    var magnitude = 0.0
                    for j in 0..<d {
                        let product = Double(values[1 + r * d + j]) * Double(query[j])
                        sum += product
                        magnitude += abs(product)
                    }
                    #expect(
                        abs(Double(scores[r]) - sum) <= 1e-6 * (1 + magnitude),
                        "\(kernel) d \(d) rows \(count): row \(r) scored \(scores[r]), Double \(sum)")
                }
            }
        }
    }

    /// A row's score alone (`dot`, what rescoring and the keyword leg's similarities use) is the same bits as in a
    /// full scan, whichever group of four it falls in.
    func checkAloneEqualsGrouped(_ kernel: ScanKernel) {
        var rng = SplitMix64(seed: 17)
        for d in [1, 15, 16, 17, 33, 384, 385] {
            let matrix = Fixture.unitMatrix(rows: 11, dimension: d, using: &rng)
            let query = rng.unitVector(dimension: d)
            var scores = [Float](repeating: 0, count: 11)
            matrix.withUnsafeValues { values in
                kernel.score(rows: values.baseAddress!, count: 11, dimension: d, query: query, into: &scores)
                for r in 0..<11 {
                    let alone = kernel.dot(values.baseAddress! + r * d, query, dimension: d)
                    #expect(alone == scores[r], "d \(d) row \(r)")
                }
            }
        }
    }

    @Test(
        "AVX-512 kernel against Double on every tail",
        .enabled(if: ScanKernel.avx512.isAvailable, "this CPU lacks AVX-512 F/CD/BW/DQ/VL"))
    func avx512() {
        checkAgainstDouble(.avx512)
        checkAloneEqualsGrouped(.avx512)
    }

    @Test(
        "AVX2 kernel against Double on every tail",
        .enabled(if: ScanKernel.avx2.isAvailable, "this CPU lacks AVX2 with FMA"))
    func avx2() {
        checkAgainstDouble(.avx2)
        checkAloneEqualsGrouped(.avx2)
    }

    @Test("OpenBLAS against Double on every tail")
    func blas() {
        checkAgainstDouble(.blas)
    }

    /// The int8 pass (`--int8`) on every tail, from an odd address, against Int32 arithmetic: integer sums are exact,
    /// so equal. Codes span ±127 (the extremes included), as the quantizer writes them.
    @Test("int8 kernels equal Int32 arithmetic on every tail", arguments: ScanKernel.allCases)
    func int8(kernel: ScanKernel) {
        guard kernel.isAvailable else {
            return print("SKIP: this CPU lacks the \(kernel) scan kernel's instructions")
        }
        var rng = SplitMix64(seed: 23)
        for d in Self.dimensions + [31, 32, 33, 63, 64, 65, 95, 96, 97] {
            for count in 1...5 {
                let random = { (rng: inout SplitMix64) in Int8(Int(rng.next() % 255) - 127) }
                let codes = (0..<(count * d + 1)).map { i in i % 11 == 0 ? -127 : random(&rng) }
                let query = (0..<d).map { j in j % 7 == 0 ? 127 : random(&rng) }
                var sums = [Int32](repeating: 7, count: count + 1)
                codes.withUnsafeBufferPointer { codes in
                    query.withUnsafeBufferPointer { query in
                        kernel.scoreInt8(
                            rows: codes.baseAddress! + 1, count: count, dimension: d,
                            query: query.baseAddress ?? codes.baseAddress!, into: &sums)
                    }
                }
                #expect(sums[count] == 7, "\(kernel) wrote past row \(count) at d \(d)")
                for r in 0..<count {
                    var expected: Int32 = 0
                    for j in 0..<d { expected += Int32(codes[1 + r * d + j]) * Int32(query[j]) }
                    #expect(sums[r] == expected, "\(kernel) d \(d) rows \(count): row \(r)")
                }
            }
        }
    }

    @Test("each CPU gets the widest kernel it runs; without AVX2, OpenBLAS")
    func choice() {
        #expect(ScanKernel.choice(forCPUFlags: []) == .blas)
        #expect(ScanKernel.choice(forCPUFlags: ["sse4_2", "avx", "fma"]) == .blas)
        #if arch(x86_64)
        #expect(ScanKernel.choice(forCPUFlags: CPU.avx2.union(["avx"])) == .avx2)
        #expect(ScanKernel.choice(forCPUFlags: CPU.avx2.union(CPU.avx512)) == .avx512)
        // AVX-512 F alone (Knights Landing) lacks the subsets the kernel's build assumes.
        #expect(ScanKernel.choice(forCPUFlags: CPU.avx2.union(["avx512f"])) == .avx2)
        #endif
        #expect(ScanKernel.best.isAvailable)
        #expect(ScanKernel.blas.isAvailable)
    }

    @Test("OpenBLAS's path is today's: one sgemv per block, its scores unchanged, never split")
    func blasPathUnchanged() {
        var rng = SplitMix64(seed: 5)
        let matrix = Fixture.unitMatrix(rows: 3000, dimension: 384, using: &rng)
        let query = rng.unitVector(dimension: 384)
        var scores = [Float](repeating: 0, count: 3000)
        matrix.withUnsafeValues { values in
            BLAS.sgemv(CblasRowMajor, CblasNoTrans, 3000, 384, 1, values.baseAddress!, 384, query, 1, 0, &scores, 1)
        }
        let expected = zip(matrix.rowIDs, scores).map { ScoredRow(id: $0, score: $1) }
            .sorted { $0.ranks(before: $1) }.prefix(25)
        let ranked = VectorSearcher(matrix: matrix).rank(
            query: query, k: 25, minScore: -.infinity, allowed: nil, blockRows: 4096, kernel: .blas, threads: 2)
        #expect(ranked == Array(expected))
    }

    @Test("a scan is split only where each part reads at least 1 MiB")
    func parts() {
        #expect(VectorSearcher.parts(rows: 100, dimension: 384, threads: 2) == 1)
        #expect(VectorSearcher.parts(rows: 1365, dimension: 384, threads: 2) == 1)
        #expect(VectorSearcher.parts(rows: 1366, dimension: 384, threads: 2) == 2)
        #expect(VectorSearcher.parts(rows: 1_000_000, dimension: 384, threads: 2) == 2)
        #expect(VectorSearcher.parts(rows: 1_000_000, dimension: 384, threads: 1) == 1)
        #expect(VectorSearcher.parts(rows: 3, dimension: 1 << 20, threads: 8) == 3)
        #expect(VectorSearcher.parts(rows: 0, dimension: 384, threads: 2) == 1)
    }

    /// Every available kernel and 1–3 threads, filters before top k, a floor, and ties across the parts' boundary
    /// (a third of the rows copy earlier ones), against the naive full sort; the split scan returns the same bits as
    /// one pass.
    @Test("split scans rank as the naive sort, ties by id, filters before top k", arguments: ScanKernel.allCases)
    func splitScan(kernel: ScanKernel) {
        guard kernel.isAvailable else {
            return print("SKIP: this CPU lacks the \(kernel) scan kernel's instructions")
        }
        var rng = SplitMix64(seed: 41)
        // 4000 × 200 floats: 3 parts with 3 threads; quantized values make every score exact, so ties are real.
        let matrix = Fixture.quantizedMatrix(rows: 4000, dimension: 200, using: &rng)
        let searcher = VectorSearcher(matrix: matrix)
        let allowed = (0..<4000).map { _ in rng.next() % 4 != 0 }
        for trial in 0..<5 {
            let query = rng.quantizedVector(dimension: 200)
            let mask: RowMask? = trial % 2 == 0 ? nil : RowMask(allowed)
            let minScore: Float = trial == 3 ? 0.5 : -.infinity
            // The last trial asks for more rows than a part holds: the merge keeps k, not a part's count.
            let k = trial == 4 ? 3000 : 40
            let expected = Naive.topK(matrix, query, k: k, minScore: minScore, allowed: mask.map { _ in allowed })
            let one = searcher.rank(
                query: query, k: k, minScore: minScore, allowed: mask, blockRows: 333, kernel: kernel, threads: 1)
            #expect(one == expected, "\(kernel) trial \(trial), one thread")
            for threads in [2, 3] {
                let split = searcher.rank(
                    query: query, k: k, minScore: minScore, allowed: mask, blockRows: 333, kernel: kernel,
                    threads: threads)
                #expect(split == one, "\(kernel) trial \(trial), \(threads) threads")
            }
        }
    }
}
