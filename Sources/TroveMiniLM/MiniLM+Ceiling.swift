import CTroveGEMM
@preconcurrency import Glibc
import Foundation
import TroveBLAS
import TroveSystem

/// What the encoder's own products deliver in each precision, for trove-bench: the ceiling a batch's throughput is
/// compared against beside OpenBLAS's sgemm (`BLASProbe`). A batch, which runs its heads, norms and GELU besides, can
/// hardly run faster than its products alone.
extension MiniLM {
    /// GFLOP/s of one layer's four products in `precision` (Q·K·V, the attention output, the intermediate and the
    /// feed-forward, in the forms `forward` runs them, without the heads, norms and GELU between them) on `rows` rows,
    /// `threads` workers at once as a batch's sequences run (each its own products, single-threaded), the best of
    /// `repeats`: per wall-clock second and per CPU-second, the latter scaled to `threads` cores.
    package func productCeiling(_ precision: Precision, threads: Int, rows: Int = feedForwardRows, repeats: Int = 5)
        -> (wall: Double, cpu: Double)
    {
        precondition(precision.isSupported, "this CPU cannot run \(precision.rawValue) products")
        precondition(rows <= Self.feedForwardRows, "a batch's products take at most \(Self.feedForwardRows) rows of 1536")
        let workers = (0..<threads).map { _ in ProductRun(self, precision, rows: rows) }
        defer { workers.forEach { $0.free() } }
        let flops = Double(threads) * ReducedWeights.shapes.map { 2 * Double(rows * $0.n * $0.k) }.reduce(0, +) / 1e9
        var best = (wall: 0.0, cpu: 0.0)
        for _ in 0..<repeats {
            let start = seconds(CLOCK_MONOTONIC)
            // OpenBLAS single-threaded in each worker, as the encoder's workers call it.
            BLASRuntime.withThreadCount(1) {
                onOwnThreads(threads) { workers[$0].run(self) }
            }
            let wall = seconds(CLOCK_MONOTONIC) - start
            // Each worker's own CPU time: the process's total lags behind threads still running elsewhere by more
            // than these few milliseconds.
            let cpu = workers.map { $0.cpu.pointee }.reduce(0, +)
            best = (max(best.wall, flops / wall), max(best.cpu, flops / cpu * Double(threads)))
        }
        return best
    }
}

private func seconds(_ clock: clockid_t) -> Double {
    var t = timespec()
    clock_gettime(clock, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// One worker's operands for `productCeiling`: its rows (and for bf16 the same rounded, as a bf16 batch's feed-forward
/// product reads them), its result and, in reduced precision, its scratch; and the CPU time its last run took.
private struct ProductRun: @unchecked Sendable {
    // @unchecked: each worker writes only its own buffers.
    let precision: Precision
    let rows: Int
    let x, out: UnsafeMutablePointer<Float>
    let rounded: UnsafeMutablePointer<UInt16>
    let reduced: Reduced?
    let cpu = UnsafeMutablePointer<Double>.allocate(capacity: 1)

    init(_ model: MiniLM, _ precision: Precision, rows: Int) {
        self.precision = precision
        self.rows = rows
        let widest = MiniLM.intermediate
        x = .allocate(capacity: rows * widest)
        out = .allocate(capacity: rows * widest)
        // Activations of a layer's scale, a fixed sequence (int8's outlier columns come from their values).
        var state: UInt32 = 1
        for i in 0..<(rows * widest) {
            state = state &* 1_664_525 &+ 1_013_904_223
            x[i] = Float(Int32(bitPattern: state >> 8) - (1 << 23)) / Float(1 << 23)
        }
        rounded = .allocate(capacity: precision == .bf16 ? rows * widest : 1)
        if precision == .bf16 { trove_bf16_rows(Int32(rows), Int32(widest), x, Int32(widest), rounded) }
        reduced = precision == .fp32 ? nil : Reduced(model.weights.reduced(precision), total: rows)
    }

    func run(_ model: MiniLM) {
        let start = seconds(CLOCK_THREAD_CPUTIME_ID)
        defer { cpu.pointee = seconds(CLOCK_THREAD_CPUTIME_ID) - start }
        let layer = model.weights.layers[0]
        let files = [[layer.query, layer.key, layer.value], [layer.output], [layer.intermediate], [layer.feedForward]]
        let copy = reduced == nil ? model.weights.relaid().layers[0] : nil
        for (index, shape) in ReducedWeights.shapes.enumerated() {
            if let reduced {
                let packed = reduced.weights.layers[0]
                let matrix = [packed.qkv, packed.output, packed.intermediate, packed.feedForward][index]
                // The feed-forward product (the last) of a bf16 batch reads the intermediate's rows as it rounded them.
                let input: Rows = precision == .bf16 && index == 3 ? .bf16(rounded) : .floats(x)
                model.product(
                    input, rows: rows, inner: shape.k, reduced, matrix, files[index], outer: shape.n,
                    into: .floats(out), bias: nil, lanes: 1)
            } else if let copy {
                let matrix = [copy.qkv, copy.output, copy.intermediate, copy.feedForward][index]
                model.gemm(x, rows: rows, inner: shape.k, matrix.weight, outer: shape.n, into: out, beta: 0, lanes: 1)
            }
        }
    }

    func free() {
        [x, out].forEach { $0.deallocate() }
        rounded.deallocate()
        cpu.deallocate()
        reduced?.free()
    }
}
