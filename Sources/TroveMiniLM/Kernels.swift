import TroveBLAS
import TroveMiniLMKernels
import TroveMiniLMKernelsAVX2
import TroveMiniLMKernelsAVX512

/// The encoder's row loops (layer norm, softmax, GELU, …) from the build of `RowKernels` this CPU runs best.
///
/// The package compiles for baseline x86-64 (SSE2: four lanes, no FMA), where softmax and GELU took ~15% of the
/// encoder's time. `TroveMiniLMKernelsAVX2` and `TroveMiniLMKernelsAVX512` are the same Swift source built for those
/// instruction sets (Package.swift), called only when the CPU reports them, so the binary still runs on any x86-64.
package enum Kernels {
    /// One build of the row loops.
    package enum Build: String, CaseIterable, Sendable {
        case baseline = "baseline x86-64"
        case avx2 = "AVX2"
        case avx512 = "AVX-512"

        /// Whether this CPU runs the build.
        package var isSupported: Bool {
            switch self {
            case .baseline: true
            case .avx2: CPU.hasAVX2
            case .avx512: CPU.hasAVX512
            }
        }
    }

    /// The widest build this CPU runs.
    package static let build = Build.allCases.last { $0.isSupported } ?? .baseline

    static func layerNorm(
        _ x: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafePointer<Float>?, residual: UnsafePointer<Float>?,
        weight: UnsafePointer<Float>, shift: UnsafePointer<Float>, epsilon: Float, build: Build = build
    ) {
        switch build {
        case .baseline:
            TroveMiniLMKernels.RowKernels.layerNorm(
                x, rows: rows, bias: bias, residual: residual, weight: weight, shift: shift, epsilon: epsilon)
        case .avx2:
            TroveMiniLMKernelsAVX2.RowKernels.layerNorm(
                x, rows: rows, bias: bias, residual: residual, weight: weight, shift: shift, epsilon: epsilon)
        case .avx512:
            TroveMiniLMKernelsAVX512.RowKernels.layerNorm(
                x, rows: rows, bias: bias, residual: residual, weight: weight, shift: shift, epsilon: epsilon)
        }
    }

    static func softmaxRows(
        _ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int, stride: Int, inverseSums: UnsafeMutablePointer<Float>,
        build: Build = build
    ) {
        switch build {
        case .baseline:
            TroveMiniLMKernels.RowKernels.softmaxRows(x, rows: rows, columns: columns, stride: stride, inverseSums: inverseSums)
        case .avx2:
            TroveMiniLMKernelsAVX2.RowKernels.softmaxRows(x, rows: rows, columns: columns, stride: stride, inverseSums: inverseSums)
        case .avx512:
            TroveMiniLMKernelsAVX512.RowKernels.softmaxRows(x, rows: rows, columns: columns, stride: stride, inverseSums: inverseSums)
        }
    }

    static func biasGELU(
        _ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, bias: UnsafePointer<Float>, build: Build = build
    ) {
        switch build {
        case .baseline: TroveMiniLMKernels.RowKernels.biasGELU(x, rows: rows, width: width, bias: bias)
        case .avx2: TroveMiniLMKernelsAVX2.RowKernels.biasGELU(x, rows: rows, width: width, bias: bias)
        case .avx512: TroveMiniLMKernelsAVX512.RowKernels.biasGELU(x, rows: rows, width: width, bias: bias)
        }
    }

    /// Memory-bound and cheap: the baseline build is as fast.
    static func scaleHeadRows(_ x: UnsafeMutablePointer<Float>, rows: Int, stride: Int, factors: UnsafePointer<Float>) {
        TroveMiniLMKernels.RowKernels.scaleHeadRows(x, rows: rows, stride: stride, factors: factors)
    }

    static func fillRows(_ out: UnsafeMutablePointer<Float>, rows: Int, with row: UnsafePointer<Float>, width: Int) {
        TroveMiniLMKernels.RowKernels.fillRows(out, rows: rows, with: row, width: width)
    }
}
