/// The encoder's own row loops, written with `SIMD16<Float>` loads and stores on raw pointers: Swift does not
/// vectorise float reductions (sums, maxima) by itself, since that would reorder additions. This file is built
/// three times: here for baseline x86-64, and through symbolic links as `TroveMiniLMKernelsAVX2` and
/// `TroveMiniLMKernelsAVX512`; `TroveMiniLM.Kernels` calls the widest build the CPU runs.
package enum RowKernels {
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
    }

    @inline(__always)
    static func store(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD16<Float>.self)
    }

    /// Each of `rows` rows of width 384: `x = LN(x + bias + residual)`, i.e. (y − mean) / √(var + ε) · weight + shift.
    /// `residual` may be nil; `bias` may be nil.
    package static func layerNorm(
        _ x: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafePointer<Float>?, residual: UnsafePointer<Float>?,
        weight: UnsafePointer<Float>, shift: UnsafePointer<Float>, epsilon: Float
    ) {
        let d = 384
        let lanes = 16
        for r in 0..<rows {
            let row = x + r * d
            var sum = SIMD16<Float>()
            var j = 0
            while j < d {
                var y = load(row + j)
                if let bias { y += load(bias + j) }
                if let residual { y += load(residual + r * d + j) }
                store(y, row + j)
                sum += y
                j += lanes
            }
            let mean = sum.sum() / Float(d)
            var squares = SIMD16<Float>()
            j = 0
            while j < d {
                let y = load(row + j) - mean
                squares += y * y
                j += lanes
            }
            let inverse = 1 / (squares.sum() / Float(d) + epsilon).squareRoot()
            j = 0
            while j < d {
                let y = (load(row + j) - mean) * inverse
                store(y * load(weight + j) + load(shift + j), row + j)
                j += lanes
            }
        }
    }

    /// Row-wise unnormalised softmax of a `rows × columns` matrix of scores already multiplied by log₂e, with row
    /// stride `stride`: each row becomes 2^(x − max) = e^(x/log₂e − max/log₂e) and `inverseSums[r]` gets 1 / its sum, applied later to the (narrower) product with V.
    package static func softmaxRows(
        _ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int, stride: Int, inverseSums: UnsafeMutablePointer<Float>
    ) {
        let vectorEnd = columns & ~15
        for r in 0..<rows {
            let row = x + r * stride
            var largest = -Float.infinity
            var j = 0
            if vectorEnd > 0 {
                var m = load(row)
                j = 16
                while j < vectorEnd {
                    let v = load(row + j)
                    m.replace(with: v, where: v .> m)
                    j += 16
                }
                largest = m.max()
            }
            while j < columns {
                largest = Swift.max(largest, row[j])
                j += 1
            }
            FastMath.exp2ShiftedInPlace(row, count: columns, shift: largest)
            var total = SIMD16<Float>()
            j = 0
            while j < vectorEnd {
                total += load(row + j)
                j += 16
            }
            var sum = total.sum()
            while j < columns {
                sum += row[j]
                j += 1
            }
            inverseSums[r] = 1 / sum
        }
    }

    /// Multiplies row r (32 wide, row stride `stride`) by `factors[r]`.
    package static func scaleHeadRows(
        _ x: UnsafeMutablePointer<Float>, rows: Int, stride: Int, factors: UnsafePointer<Float>
    ) {
        for r in 0..<rows {
            let row = x + r * stride
            let f = factors[r]
            store(load(row) * f, row)
            store(load(row + 16) * f, row + 16)
        }
    }

    /// `x[r][j] = gelu(x[r][j] + bias[j])` for a `rows × width` matrix.
    package static func biasGELU(_ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, bias: UnsafePointer<Float>) {
        for r in 0..<rows {
            let row = x + r * width
            for j in 0..<width { row[j] = FastMath.gelu(row[j] + bias[j]) }
        }
    }

    /// Copies `row` into each of `rows` rows of width `width`.
    package static func fillRows(
        _ out: UnsafeMutablePointer<Float>, rows: Int, with row: UnsafePointer<Float>, width: Int
    ) {
        for r in 0..<rows { (out + r * width).update(from: row, count: width) }
    }
}
