import Foundation
import Testing
import TroveMiniLMKernels

@testable import TroveMiniLM
import TroveTestTraits

/// The vectorised row loops against plain Double arithmetic; they need no model.
@Suite("Encoder kernels", .offCooperativePool)
struct KernelTests {
    @Test("exp2 stays within a few ulp of libm over the range softmax and GELU use")
    func exp2Accuracy() {
        var worst: Double = 0
        var x: Float = -100
        while x <= 60 {
            let expected = Foundation.exp2(Double(x))
            worst = max(worst, abs(Double(FastMath.exp2(x)) - expected) / expected)
            x += 0.013
        }
        #expect(worst < 5e-7)
        #expect(FastMath.exp2(-1000) >= 0)
        #expect(FastMath.exp2(1000).isFinite)
    }

    /// Every build of the row loops this CPU runs (baseline x86-64, AVX2, AVX-512).
    static let builds = Kernels.Build.allCases.filter(\.isSupported)

    @Test(
        "softmax rows (in powers of 2, normalised by the returned factors) match the definition",
        arguments: [1, 15, 16, 37, 200], builds)
    func softmax(columns: Int, build: Kernels.Build) {
        let rows = 3
        var x = (0..<(rows * columns)).map { Float(sin(Double($0) * 1.7) * 9) }
        let original = x
        var factors = [Float](repeating: 0, count: rows)
        Kernels.softmaxRows(&x, rows: rows, columns: columns, stride: columns, inverseSums: &factors, build: build)
        for r in 0..<rows {
            let row = original[(r * columns)..<((r + 1) * columns)].map(Double.init)
            let top = row.max()!
            let powers = row.map { Foundation.exp2($0 - top) }
            let sum = powers.reduce(0, +)
            for j in 0..<columns {
                #expect(abs(Double(x[r * columns + j] * factors[r]) - powers[j] / sum) < 1e-6)
            }
        }
    }

    @Test("layer norm with bias and residual matches the definition", arguments: builds)
    func layerNorm(build: Kernels.Build) {
        let d = 384, rows = 2
        var x = (0..<(rows * d)).map { Float(cos(Double($0) * 0.37) * 3) }
        let residual = (0..<(rows * d)).map { Float(sin(Double($0) * 0.11)) }
        let bias = (0..<d).map { Float($0 % 7) * 0.1 }
        let weight = (0..<d).map { 1 + Float($0 % 5) * 0.01 }
        let shift = (0..<d).map { Float($0 % 3) * -0.2 }
        let original = x
        Kernels.layerNorm(
            &x, rows: rows, bias: bias, residual: residual, weight: weight, shift: shift, epsilon: 1e-12, build: build)
        for r in 0..<rows {
            let y = (0..<d).map { Double(original[r * d + $0]) + Double(bias[$0]) + Double(residual[r * d + $0]) }
            let mean = y.reduce(0, +) / Double(d)
            let variance = y.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(d)
            for j in 0..<d {
                let expected = (y[j] - mean) / (variance + 1e-12).squareRoot() * Double(weight[j]) + Double(shift[j])
                #expect(abs(Double(x[r * d + j]) - expected) < 1e-4)
            }
        }
    }

    @Test("GELU follows the tanh approximation")
    func gelu() {
        var x: Float = -8
        while x <= 8 {
            let v = Double(x)
            let expected = 0.5 * v * (1 + tanh((2 / Double.pi).squareRoot() * (v + 0.044715 * v * v * v)))
            #expect(abs(Double(FastMath.gelu(x)) - expected) < 1e-5)
            x += 0.05
        }
    }

    @Test("bias + GELU over rows matches FastMath.gelu", arguments: [1, 16, 37, 1536], builds)
    func biasGELU(width: Int, build: Kernels.Build) {
        let rows = 2
        var x = (0..<(rows * width)).map { Float(sin(Double($0) * 0.7) * 6) }
        let bias = (0..<width).map { Float($0 % 9) * 0.1 - 0.4 }
        let original = x
        Kernels.biasGELU(&x, rows: rows, width: width, bias: bias, build: build)
        for r in 0..<rows {
            for j in 0..<width {
                let expected = FastMath.gelu(original[r * width + j] + bias[j])
                #expect(abs(x[r * width + j] - expected) <= 1e-6 * max(1, abs(expected)))
            }
        }
    }
}
