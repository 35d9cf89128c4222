import TroveBLAS
@preconcurrency import Glibc
import Foundation
import TroveSystem

/// Measures what OpenBLAS delivers on this machine, for trove-bench: the ceiling the encoder is compared against.
package enum BLASProbe {
    /// The better of `measure` with B transposed (PyTorch's weight layout) and not (the encoder's), per wall-clock
    /// second and per CPU-second of this process (the latter not lowered by other processes taking turns on the
    /// cores).
    package static func ceiling(threads: Int) -> (wall: Double, cpu: Double) {
        let a = measure(threads: threads, transposed: true, repeats: 40)
        let b = measure(threads: threads, transposed: false, repeats: 40)
        return (max(a.wall, b.wall), max(a.cpu, b.cpu))
    }

    /// GFLOP/s of `threads` parallel single-threaded sgemms shaped like the feed-forward (256×1536×384, B as
    /// `[1536, 384]` transposed, or `[384, 1536]`), per wall-clock second and per CPU-second.
    static func measure(threads: Int, transposed: Bool, repeats: Int) -> (wall: Double, cpu: Double) {
        let m = 256, n = 1536, k = 384
        var start = timespec()
        var cpuStart = timespec()
        var end = timespec()
        var cpuEnd = timespec()
        BLASRuntime.withThreadCount(1) {
            clock_gettime(CLOCK_MONOTONIC, &start)
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpuStart)
            onOwnThreads(threads) { _ in
                let a = [Float](repeating: 0.01, count: m * k)
                let b = [Float](repeating: 0.02, count: n * k)
                var c = [Float](repeating: 0, count: m * n)
                for _ in 0..<repeats {
                    BLAS.sgemm(
                        CblasRowMajor, CblasNoTrans, transposed ? CblasTrans : CblasNoTrans, Int32(m), Int32(n), Int32(k), 1,
                        a, Int32(k), b, transposed ? Int32(k) : Int32(n),
                        0, &c, Int32(n))
                }
            }
            clock_gettime(CLOCK_MONOTONIC, &end)
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpuEnd)
        }
        func seconds(_ a: timespec, _ b: timespec) -> Double { Double(b.tv_sec - a.tv_sec) + Double(b.tv_nsec - a.tv_nsec) / 1e9 }
        let gflop = Double(threads * repeats) * 2 * Double(m * n * k) / 1e9
        // Per CPU-second, scaled to `threads` cores.
        return (gflop / seconds(start, end), gflop / seconds(cpuStart, cpuEnd) * Double(threads))
    }
}
