import CTroveScan
import TroveBLAS

/// What scores the rows of a single-query scan: Trove's streaming kernel for the widest instruction set the CPU has,
/// or OpenBLAS (`cblas_sgemv` per block, `cblas_sdot` per row), the path every CPU took before the kernels and the
/// one a CPU without AVX2 still takes.
package enum ScanKernel: String, Sendable, CaseIterable {
    /// `trove_scan_avx512`: AVX-512 F, 16 floats per vector.
    case avx512
    /// `trove_scan_avx2`: AVX2 with FMA, 8 floats per vector.
    case avx2
    /// OpenBLAS's sgemv and sdot.
    case blas

    /// The kernel for a CPU that reports `flags`: the widest it runs, else BLAS.
    package static func choice(forCPUFlags flags: Set<Substring>) -> ScanKernel {
        allCases.first { kernel in kernel.instructionSets.map(flags.isSuperset(of:)) ?? true } ?? .blas
    }

    /// This CPU's kernel.
    package static let best = choice(forCPUFlags: CPU.flags)

    /// The instruction sets the kernel needs (nil for BLAS, which runs everywhere); none runs off x86-64.
    private var instructionSets: Set<Substring>? {
        #if arch(x86_64)
        switch self {
        case .avx512: CPU.avx512
        case .avx2: CPU.avx2
        case .blas: nil
        }
        #else
        // An instruction set no CPU reports, so only BLAS is ever chosen.
        self == .blas ? nil : ["x86-64"]
        #endif
    }

    /// Whether this CPU runs the kernel.
    package var isAvailable: Bool { instructionSets.map(CPU.flags.isSuperset(of:)) ?? true }

    /// `scores[r] = rows[r] · query` for `count` contiguous rows of `dimension` floats. Traps unless available.
    package func score(
        rows: UnsafePointer<Float>, count: Int, dimension: Int, query: UnsafePointer<Float>,
        into scores: UnsafeMutablePointer<Float>
    ) {
        precondition(isAvailable, "the \(rawValue) scan kernel needs instructions this CPU lacks")
        switch self {
        case .blas:
            // A zero-dimension matrix scores 0 everywhere; BLAS rejects lda = 0.
            guard dimension > 0 else { return scores.update(repeating: 0, count: count) }
            BLAS.sgemv(
                CblasRowMajor, CblasNoTrans, Int32(count), Int32(dimension), 1, rows, Int32(dimension), query, 1, 0,
                scores, 1)
        #if arch(x86_64)
        case .avx512: trove_scan_avx512(rows, count, dimension, query, scores)
        case .avx2: trove_scan_avx2(rows, count, dimension, query, scores)
        #else
        case .avx512, .avx2: fatalError("unreachable: isAvailable is false off x86-64")
        #endif
        }
    }

    /// `sums[r] = rows[r] · query` in exact Int32 for `count` contiguous rows of `dimension` int8 codes: the `--int8`
    /// copy's approximate pass. Where the fp32 scan runs OpenBLAS, a plain loop. Traps unless available.
    package func scoreInt8(
        rows: UnsafePointer<Int8>, count: Int, dimension: Int, query: UnsafePointer<Int8>,
        into sums: UnsafeMutablePointer<Int32>
    ) {
        precondition(isAvailable, "the \(rawValue) scan kernel needs instructions this CPU lacks")
        switch self {
        case .blas:
            for r in 0..<count { sums[r] = Self.int8Dot(rows + r * dimension, query, dimension) }
        #if arch(x86_64)
        case .avx512: trove_scan_int8_avx512(rows, count, dimension, query, sums)
        case .avx2: trove_scan_int8_avx2(rows, count, dimension, query, sums)
        #else
        case .avx512, .avx2: fatalError("unreachable: isAvailable is false off x86-64")
        #endif
        }
    }

    /// Σ a[i]·b[i] in Int32; wrapping arithmetic lets the compiler vectorize (|a·b| ≤ 127² · d never overflows
    /// for d < 133 000).
    private static func int8Dot(_ a: UnsafePointer<Int8>, _ b: UnsafePointer<Int8>, _ count: Int) -> Int32 {
        var sum: Int32 = 0
        for i in 0..<count { sum &+= Int32(truncatingIfNeeded: a[i]) &* Int32(truncatingIfNeeded: b[i]) }
        return sum
    }

    /// One row's score: the same bits the row gets in a full scan with a Trove kernel; with BLAS, `cblas_sdot`'s,
    /// equal to sgemv's up to rounding.
    package func dot(_ row: UnsafePointer<Float>, _ query: UnsafePointer<Float>, dimension: Int) -> Float {
        guard dimension > 0 else { return 0 }
        if self == .blas { return BLAS.sdot(Int32(dimension), row, 1, query, 1) }
        var result: Float = 0
        score(rows: row, count: 1, dimension: dimension, query: query, into: &result)
        return result
    }
}
