@preconcurrency import COpenBLAS
@preconcurrency import Glibc
import Foundation

/// Measures what OpenBLAS delivers on this machine, for benchmarks: the ceiling the encoder is compared against.
public enum BLASProbe {
    /// The CPU kernel OpenBLAS picked, e.g. `SkylakeX`, or the slow fallback `Prescott`.
    public static var kernel: String { String(cString: openblas_get_corename()) }

    /// The better of `sgemmGFLOPS` with B transposed (PyTorch's weight layout) and not (the encoder's).
    public static func ceilingGFLOPS(threads: Int) -> Double {
        max(sgemmGFLOPS(threads: threads, transposed: true), sgemmGFLOPS(threads: threads, transposed: false))
    }

    /// GFLOP/s of `threads` parallel single-threaded sgemms shaped like the feed-forward (256×1536×384, B as
    /// `[1536, 384]` transposed, or `[384, 1536]`).
    public static func sgemmGFLOPS(threads: Int, transposed: Bool = true, repeats: Int = 40) -> Double {
        let m = 256, n = 1536, k = 384
        let previous = openblas_get_num_threads()
        openblas_set_num_threads(1)
        defer { openblas_set_num_threads(previous) }
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let a = [Float](repeating: 0.01, count: m * k)
            let b = [Float](repeating: 0.02, count: n * k)
            var c = [Float](repeating: 0, count: m * n)
            for _ in 0..<repeats {
                cblas_sgemm(
                    CblasRowMajor, CblasNoTrans, transposed ? CblasTrans : CblasNoTrans, Int32(m), Int32(n), Int32(k), 1,
                    a, Int32(k), b, transposed ? Int32(k) : Int32(n),
                    0, &c, Int32(n))
            }
        }
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &end)
        let seconds = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
        return Double(threads * repeats) * 2 * Double(m * n * k) / seconds / 1e9
    }
}
