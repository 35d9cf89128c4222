import CTroveGEMM
import TroveBLAS

/// The layer matrices packed for a reduced-precision product (`Precision`), made from the model file's `[out, in]`
/// matrices and kept in a cache file beside the model under the same rules as the fp32 copy (`WeightsCache`: keyed
/// by the model file, checksummed, rebuilt when it does not check out, in memory where the folder is read-only).
///
/// bf16: 10.6 M values, 21 MB, half the fp32 copy; int8: 7.2 MB with the column scales and sums (14.3 MB where its
/// feed-forward matrices are bf16); int16: 21.3 MB. A process that
/// indexes in reduced precision maps that file instead of the fp32 copy (a query reads the model file's own matrices
/// either way, and int8 reads the few columns that meet its outliers there too).
struct ReducedWeights: @unchecked Sendable {
    // @unchecked: read-only pointers into `storage`, which this value retains.

    /// One packed matrix and the arithmetic it was packed for.
    struct Matrix {
        let base: UnsafeRawPointer
        let precision: Precision
    }

    /// One layer's packed matrices, in the order `shapes` lists them.
    struct Layer {
        let qkv, output, intermediate, feedForward: Matrix
    }

    /// `OwnedFloats` or `MappedFloats`, kept alive for `layers`.
    let storage: any Sendable
    let layers: [Layer]
    let load: MiniLM.WeightsLoad

    /// Each layer's products as (output columns n, inner length k), in the order the packed matrices lie: Q, K and V
    /// side by side (1152 columns), the attention output, the intermediate and the feed-forward.
    static let shapes: [(n: Int, k: Int)] = [
        (3 * MiniLM.dimension, MiniLM.dimension), (MiniLM.dimension, MiniLM.dimension),
        (MiniLM.intermediate, MiniLM.dimension), (MiniLM.dimension, MiniLM.intermediate),
    ]

    /// Bytes of one packed n×k matrix.
    static func bytes(_ precision: Precision, n: Int, k: Int) -> Int {
        switch precision {
        case .fp32: 0  // multiplied from the model file's own matrix
        case .bf16: 2 * trove_bf16_packed_count(Int32(n), Int32(k))
        case .int8: trove_int8_packed_bytes(Int32(n), Int32(k))
        case .int16: trove_int16_packed_bytes(Int32(n), Int32(k))
        }
    }

    /// The packing of the matrix `shapes[index]` in a copy for `precision`: its own, except int8's feed-forward
    /// product, whose input is GELU's output, 1536 columns of a long-tailed spread that eight bits per row could not
    /// hold (with it in int8 one set's nDCG@10 moved beyond the bound, BENCHMARKS.md#reduced-precision). It stays bf16
    /// on an AMD CPU with AVX-512 BF16 and fp32 elsewhere (OpenBLAS on the model file's matrix, packed nowhere):
    /// bf16 ran slower than fp32 on Intel's Emerald Rapids.
    static func packing(_ precision: Precision, shape index: Int) -> Precision {
        guard precision == .int8, index == 3 else { return precision }
        return feedForwardBF16 ? .bf16 : .fp32
    }

    /// Whether int8's feed-forward product is bf16 on this CPU (else fp32).
    static let feedForwardBF16 = CPU.isAMD && Precision.bf16.isSupported

    /// Bytes of one layer's packed matrices.
    static func bytesPerLayer(_ precision: Precision) -> Int {
        shapes.enumerated().reduce(0) { sum, shape in
            sum + bytes(packing(precision, shape: shape.offset), n: shape.element.n, k: shape.element.k)
        }
    }

    /// The cache's name for the packing (its "kernel" field and file name): bump the number when it changes.
    static func cacheKind(_ precision: Precision) -> String {
        let base = "\(precision.rawValue)-panel\(panel(precision))"
        guard precision == .int8 else { return base + "-p1" }
        return base + "-p2-ff" + packing(.int8, shape: 3).rawValue
    }

    /// Output columns per panel of the packing.
    static func panel(_ precision: Precision) -> Int {
        switch precision {
        case .fp32: 0
        case .bf16: Int(TROVE_BF16_PANEL)
        case .int8: Int(TROVE_INT8_PANEL)
        case .int16: Int(TROVE_INT16_PANEL)
        }
    }

    /// The key a cache file of `precision` must match for the model file `source`.
    static func key(_ precision: Precision, source: FileIdentity) -> WeightsCache.Key {
        WeightsCache.Key(
            kernel: cacheKind(precision), source: source,
            floatCount: bytesPerLayer(precision) * MiniLM.layerCount / MemoryLayout<Float>.size)
    }

    /// The copy at `base` (made here or mapped), one layer after another.
    init(_ precision: Precision, storage: any Sendable, base: UnsafeRawPointer, load: MiniLM.WeightsLoad) {
        self.storage = storage
        self.load = load
        let perLayer = Self.bytesPerLayer(precision)
        layers = (0..<MiniLM.layerCount).map { layer in
            var matrices: [Matrix] = []
            var offset = layer * perLayer
            for (index, (n, k)) in Self.shapes.enumerated() {
                let packing = Self.packing(precision, shape: index)
                matrices.append(Matrix(base: base + offset, precision: packing))
                offset += Self.bytes(packing, n: n, k: k)
            }
            return Layer(qkv: matrices[0], output: matrices[1], intermediate: matrices[2], feedForward: matrices[3])
        }
    }

    /// Packs `layers` (the file's matrices) into `base`, which holds `bytesPerLayer(precision) * layerCount` bytes.
    static func pack(_ precision: Precision, _ layers: [Weights.Layer], into base: UnsafeMutableRawPointer) {
        let d = MiniLM.dimension
        // Q, K and V pack one after another as if one 1152-column matrix: each fills whole panels.
        precondition(
            [Precision.bf16, .int8, .int16].allSatisfy { d % panel($0) == 0 },
            "Q, K and V must each fill whole panels")
        var offset = 0
        for layer in layers {
            // Each with its index in `shapes`.
            let matrices: [(Dense, shape: Int)] = [
                (layer.query, 0), (layer.key, 0), (layer.value, 0), (layer.output, 1), (layer.intermediate, 2),
                (layer.feedForward, 3),
            ]
            for (dense, shape) in matrices {
                let out = base + offset
                let (n, k) = (shape == 0 ? d : shapes[shape].n, shapes[shape].k)
                let packing = packing(precision, shape: shape)
                switch packing {
                case .fp32: break  // read from the model file
                case .bf16:
                    let values = out.assumingMemoryBound(to: UInt16.self)
                    trove_bf16_pack(Int32(n), Int32(k), dense.weight, Int32(k), values)
                case .int8: trove_int8_pack(Int32(n), Int32(k), dense.weight, Int32(k), out)
                case .int16: trove_int16_pack(Int32(n), Int32(k), dense.weight, Int32(k), out)
                }
                offset += bytes(packing, n: n, k: k)
            }
        }
    }
}
