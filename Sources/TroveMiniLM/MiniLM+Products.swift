import CTroveGEMM
import TroveBLAS

/// The encoder's matrix products, in the form each batch takes (`MiniLM.forward` picks one per layer): in place on
/// the model file's matrices (a query), OpenBLAS's sgemm on the re-laid-out copy (fp32), or a packed reduced-precision
/// copy (bf16, int8, int16: `ReducedWeights`); each split over a pass's lanes by columns of W.
extension MiniLM {
    /// `out = x · Wᵀ` for `file`, a matrix of the model file (`[outer, inner]`), through its packed
    /// reduced-precision copy or its re-laid-out `copy` when there is one.
    func multiply(
        _ x: UnsafePointer<Float>, rows: Int, inner: Int, _ file: Dense, _ copy: Dense?,
        _ packed: (Reduced?, ReducedWeights.Matrix?), outer: Int, into out: UnsafeMutablePointer<Float>, lanes: Int
    ) {
        if let reduced = packed.0, let matrix = packed.1 {
            product(
                .floats(x), rows: rows, inner: inner, reduced, matrix, [file], outer: outer, into: .floats(out),
                bias: nil, lanes: lanes)
        } else if let copy {
            gemm(x, rows: rows, inner: inner, copy.weight, outer: outer, into: out, beta: 0, lanes: lanes)
        } else {
            inPlace(x, rows: rows, inner: inner, [(file.weight, nil, out)], outer: outer, stride: outer, lanes: lanes)
        }
    }

    /// `out = x · Wᵀ + bias` (rows of `out` `stride` apart) for each of `parts`, the file's `[outer, inner]`
    /// matrices W read in place; with `lanes` > 1 each lane takes its own rows of every W.
    func inPlace(
        _ x: UnsafePointer<Float>, rows: Int, inner: Int,
        _ parts: [(weight: UnsafePointer<Float>, bias: UnsafePointer<Float>?, out: UnsafeMutablePointer<Float>)],
        outer: Int, stride: Int, lanes: Int
    ) {
        // Whole panels of twelve rows: both kernels' units (three rows of W for AVX2, four for AVX-512).
        let share = (outer / lanes + 11) / 12 * 12
        let product = rowKernels == .avx512 ? trove_sgemm_nt_avx512 : trove_sgemm_nt_avx2
        split(lanes) { lane in
            let first = lane * share
            let count = min(share, outer - first)
            guard count > 0 else { return }
            for (weight, bias, out) in parts {
                product(
                    Int32(rows), Int32(count), Int32(inner), x, Int32(inner), weight + first * inner, Int32(inner),
                    bias.map { $0 + first }, 0, out + first, Int32(stride))
            }
        }
    }

    /// `x · Wᵀ + bias` (`outer` floats, or nil) in reduced precision, into `destination` (rows `outer` apart): x
    /// converted once (on this thread), then each lane multiplies its own whole panels of the packed W, adding the bias
    /// as it stores them (no pass of its own over the result). `file` is W as the model file holds it, its matrices'
    /// rows one after another (Q, K, V): int8 reads its outlier columns there.
    func product(
        _ input: Rows, rows: Int, inner: Int, _ reduced: Reduced, _ packed: ReducedWeights.Matrix, _ file: [Dense],
        outer: Int, into destination: Destination, bias: UnsafePointer<Float>?, lanes: Int
    ) {
        let matrix = packed.base
        defer {
            if case .bf16(let rounded, let out) = destination, packed.precision != .bf16 {
                trove_bf16_rows(Int32(rows), Int32(outer), out, Int32(outer), rounded)
            }
        }
        // The floats of every product but a bf16 one, which may take rows already in bf16, and where they go.
        var x: UnsafePointer<Float> { input.floats }
        var out: UnsafeMutablePointer<Float> { destination.floats }
        switch packed.precision {
        case .fp32:
            // int8's feed-forward product where bf16 is slow: OpenBLAS on the model file's `[outer, inner]` matrix.
            precondition(file.count == 1, "an fp32 product of a packed copy reads one matrix of the model file")
            if let bias { Kernels.fillRows(out, rows: rows, with: bias, width: outer) }
            gemm(
                x, rows: rows, inner: inner, file[0].weight, outer: outer, into: out, beta: bias == nil ? 0 : 1,
                lanes: lanes, fileLayout: true)
        case .bf16:
            let a: UnsafePointer<UInt16>
            switch input {
            case .bf16(let converted): a = converted
            case .floats(let x):
                let scratch = reduced.scratch.assumingMemoryBound(to: UInt16.self)
                trove_bf16_rows(Int32(rows), Int32(inner), x, Int32(inner), scratch)
                a = UnsafePointer(scratch)
            }
            let panelValues = trove_bf16_packed_count(TROVE_BF16_PANEL, Int32(inner))
            splitPanels(outer: outer, width: Int(TROVE_BF16_PANEL), lanes: lanes) { first, count, panel in
                let w = matrix.assumingMemoryBound(to: UInt16.self) + panel * panelValues
                let b = bias.map { $0 + first }
                switch destination {
                case .floats(let out):
                    trove_bf16_gemm(Int32(rows), Int32(count), Int32(inner), a, w, b, out + first, Int32(outer))
                case .bf16(let rounded, _):
                    trove_bf16_gemm_rounded(
                        Int32(rows), Int32(count), Int32(inner), a, w, b, rounded + first, Int32(outer))
                case .bf16GELU(let rounded):
                    trove_bf16_gemm_gelu(
                        Int32(rows), Int32(count), Int32(inner), a, w, b, rounded + first, Int32(outer))
                }
            }
        case .int8:
            let count = min(Int(TROVE_INT8_OUTLIERS), inner)
            let columns = reduced.columns
            trove_int8_outliers(Int32(rows), Int32(inner), x, Int32(inner), Int32(count), columns)
            let part = outer / file.count
            for (index, dense) in file.enumerated() {
                trove_int8_gather(
                    Int32(part), dense.weight, Int32(inner), Int32(count), columns,
                    reduced.outlierWeights + index * part, Int32(outer))
            }
            let a = reduced.scratch.assumingMemoryBound(to: UInt8.self)
            trove_int8_rows(
                Int32(rows), Int32(inner), x, Int32(inner), Int32(count), columns, a, reduced.rowScales,
                reduced.rowOffsets, reduced.kept)
            let panelBytes = trove_int8_packed_bytes(TROVE_INT8_PANEL, Int32(inner))
            splitPanels(outer: outer, width: Int(TROVE_INT8_PANEL), lanes: lanes) { first, columns, panel in
                trove_int8_gemm(
                    Int32(rows), Int32(columns), Int32(inner), a, reduced.rowScales, reduced.rowOffsets, Int32(count),
                    reduced.kept, reduced.outlierWeights + first, Int32(outer), matrix + panel * panelBytes,
                    bias.map { $0 + first }, out + first, Int32(outer))
            }
        case .int16:
            let a = reduced.scratch.assumingMemoryBound(to: Int16.self)
            trove_int16_rows(Int32(rows), Int32(inner), x, Int32(inner), a, reduced.rowScales)
            let panelBytes = trove_int16_packed_bytes(TROVE_INT16_PANEL, Int32(inner))
            let gemm = CPU.hasAVXVNNI ? trove_int16_gemm_avxvnni : trove_int16_gemm_avx2
            splitPanels(outer: outer, width: Int(TROVE_INT16_PANEL), lanes: lanes) { first, columns, panel in
                gemm(
                    Int32(rows), Int32(columns), Int32(inner), a, reduced.rowScales, matrix + panel * panelBytes,
                    bias.map { $0 + first }, out + first, Int32(outer))
            }
        }
    }

    /// Runs `body(first, count, panel)` for each lane's share of the whole `width`-column panels of an `outer`-column
    /// product: its first column, its number of columns and its first panel.
    func splitPanels(outer: Int, width: Int, lanes: Int, _ body: (Int, Int, Int) -> Void) {
        let share = ((outer + width - 1) / width + lanes - 1) / lanes
        split(lanes) { lane in
            let first = lane * share * width
            let count = min(share * width, outer - first)
            guard count > 0 else { return }
            body(first, count, lane * share)
        }
    }

    /// `out = x · W + beta · out` where W is the pre-transposed `[inner, outer]` layout (with `fileLayout`, the model
    /// file's `[outer, inner]`, for int8's fp32 feed-forward product); with `lanes` > 1 each lane multiplies its own
    /// block of W's columns. A one-query embedding streams all 42 MB of weights through these products, more than one
    /// core's memory bandwidth carries in the time its arithmetic takes (BENCHMARKS.md#query-embedding).
    func gemm(
        _ x: UnsafePointer<Float>, rows: Int, inner: Int, _ weight: UnsafePointer<Float>, outer: Int,
        into out: UnsafeMutablePointer<Float>, beta: Float, lanes: Int, fileLayout: Bool = false
    ) {
        // Blocks of whole 8-float vectors, so every lane's columns start aligned as the full product's do.
        let share = (outer / lanes + 7) / 8 * 8
        split(lanes) { lane in
            let first = lane * share
            let count = min(share, outer - first)
            guard count > 0 else { return }
            BLAS.sgemm(
                CblasRowMajor, CblasNoTrans, fileLayout ? CblasTrans : CblasNoTrans, Int32(rows), Int32(count),
                Int32(inner), 1, x, Int32(inner), fileLayout ? weight + first * inner : weight + first,
                Int32(fileLayout ? inner : outer), beta, out + first, Int32(outer))
        }
    }
}

/// A reduced-precision product's rows: floats, or for a bf16 product rows already in bf16 (as `trove_bf16_rows` or a
/// rounding product leaves them: each row `inner` values, rounded up to even).
enum Rows {
    case floats(UnsafePointer<Float>)
    case bf16(UnsafePointer<UInt16>)

    var floats: UnsafePointer<Float> {
        guard case .floats(let x) = self else { preconditionFailure("only a bf16 product reads rows in bf16") }
        return x
    }
}

/// Where a reduced-precision product's result goes.
enum Destination {
    case floats(UnsafeMutablePointer<Float>)
    /// Rounded to bf16: a bf16 product rounds as it stores; the others write the floats (`via`) and convert them.
    case bf16(UnsafeMutablePointer<UInt16>, via: UnsafeMutablePointer<Float>)
    /// Through GELU, then rounded to bf16: a bf16 product's alone.
    case bf16GELU(UnsafeMutablePointer<UInt16>)

    var floats: UnsafeMutablePointer<Float> {
        switch self {
        case .floats(let out), .bf16(_, let out): out
        case .bf16GELU: preconditionFailure("only a bf16 product applies GELU as it stores")
        }
    }
}

/// A forward pass's reduced-precision state: the packed weights and room for one product's converted rows (and,
/// for int8, their scales, offsets and outliers).
struct Reduced: @unchecked Sendable {
    // @unchecked: the buffers are written on the calling thread before a product's lanes start, then only read.
    let weights: ReducedWeights
    let scratch: UnsafeMutableRawPointer
    /// int8 (int16: `rowScales` alone): each row's scale and offset, its outlier values (`TROVE_INT8_OUTLIERS` a
    /// row), the outlier columns and W's values in those columns (a row of up to 1536 per outlier).
    let rowScales, rowOffsets, kept, outlierWeights: UnsafeMutablePointer<Float>
    let columns: UnsafeMutablePointer<Int32>

    /// Room for the largest product's rows of a batch of `total` tokens: all of them × 384, or a feed-forward block
    /// × 1536 (bf16 and int16: two bytes each; int8: one).
    init(_ weights: ReducedWeights, total: Int) {
        self.weights = weights
        let values = max(total * MiniLM.dimension, MiniLM.feedForwardRows * MiniLM.intermediate)
        scratch = .allocate(byteCount: 2 * values, alignment: 64)
        let rows = max(total, MiniLM.feedForwardRows)
        let outliers = Int(TROVE_INT8_OUTLIERS)
        rowScales = .allocate(capacity: rows)
        rowOffsets = .allocate(capacity: rows)
        kept = .allocate(capacity: rows * outliers)
        outlierWeights = .allocate(capacity: outliers * max(MiniLM.intermediate, 3 * MiniLM.dimension))
        columns = .allocate(capacity: outliers)
    }

    func free() {
        scratch.deallocate()
        [rowScales, rowOffsets, kept, outlierWeights].forEach { $0.deallocate() }
        columns.deallocate()
    }
}
