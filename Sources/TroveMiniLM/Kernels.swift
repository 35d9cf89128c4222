import TroveBLAS
import TroveMiniLMKernels
import TroveMiniLMKernelsAVX512

/// The encoder's row loops (layer norm, softmax, GELU, …) from the build of `RowKernels` this CPU runs best.
///
/// The package compiles for baseline x86-64 (SSE2: four lanes, no FMA), where softmax and GELU took ~15% of the
/// encoder's time. `TroveMiniLMKernelsAVX512` is the same Swift source built for AVX-512 (Package.swift), called
/// only when the CPU reports those instruction sets, so the binary still runs on any x86-64.
enum Kernels {
    static let avx512 = CPU.hasAVX512

    static func layerNorm(
        _ x: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafePointer<Float>?, residual: UnsafePointer<Float>?,
        weight: UnsafePointer<Float>, shift: UnsafePointer<Float>, epsilon: Float
    ) {
        if avx512 {
            TroveMiniLMKernelsAVX512.RowKernels.layerNorm(
                x, rows: rows, bias: bias, residual: residual, weight: weight, shift: shift, epsilon: epsilon)
        } else {
            TroveMiniLMKernels.RowKernels.layerNorm(
                x, rows: rows, bias: bias, residual: residual, weight: weight, shift: shift, epsilon: epsilon)
        }
    }

    static func softmaxRows(
        _ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int, stride: Int, inverseSums: UnsafeMutablePointer<Float>
    ) {
        if avx512 {
            TroveMiniLMKernelsAVX512.RowKernels.softmaxRows(x, rows: rows, columns: columns, stride: stride, inverseSums: inverseSums)
        } else {
            TroveMiniLMKernels.RowKernels.softmaxRows(x, rows: rows, columns: columns, stride: stride, inverseSums: inverseSums)
        }
    }

    static func biasGELU(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, bias: UnsafePointer<Float>) {
        if avx512 {
            TroveMiniLMKernelsAVX512.RowKernels.biasGELU(x, rows: rows, width: width, bias: bias)
        } else {
            TroveMiniLMKernels.RowKernels.biasGELU(x, rows: rows, width: width, bias: bias)
        }
    }

    /// Memory-bound and cheap: the portable build is as fast.
    static func scaleHeadRows(_ x: UnsafeMutablePointer<Float>, rows: Int, stride: Int, factors: UnsafePointer<Float>) {
        TroveMiniLMKernels.RowKernels.scaleHeadRows(x, rows: rows, stride: stride, factors: factors)
    }

    static func fillRows(_ out: UnsafeMutablePointer<Float>, rows: Int, with row: UnsafePointer<Float>, width: Int) {
        TroveMiniLMKernels.RowKernels.fillRows(out, rows: rows, with: row, width: width)
    }
}
