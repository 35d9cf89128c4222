@preconcurrency import COpenBLAS
@preconcurrency import Glibc

/// OpenBLAS's process-wide settings that every searcher shares: thread count and the CPU kernel in use.
public enum BLASRuntime {
    /// The thread count searchers apply on first use unless `OPENBLAS_NUM_THREADS` (or `GOTO_`/`OMP_NUM_THREADS`) is set: 2, or 1 on one CPU.
    // Measured with `trove-bench search --sizes 10000,100000,1000000 --dims 384 --threads 1,2` on 2 vCPUs.
    // Idle machine (load ≈ 2, the benchmark itself): 2 threads cut p50 1.7–2× (10k 0.63 → 0.32 ms, 100k 11.9 →
    // 6.6 ms, 1M 126 → 75 ms) and raised sgemm batch throughput 1.4–1.6×. Under heavy contention (load ≈ 5,
    // other builds) p50 was equal, p95 sometimes worse. Interactive search usually has idle cores, so take 2;
    // more than 2 was not measured (at 1M, 2 threads already reach ~20 GB/s, near memory bandwidth).
    public static var recommendedThreadCount: Int {
        Swift.min(2, Swift.max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Threads OpenBLAS uses for one call.
    public static var threadCount: Int { Int(openblas_get_num_threads()) }

    /// Sets the thread count for the whole process (at least 1).
    public static func setThreadCount(_ count: Int) {
        // Apply the default first so a later first searcher cannot overwrite an explicit choice.
        applyDefaultOnce()
        openblas_set_num_threads(Int32(Swift.max(1, count)))
    }

    /// The CPU kernel OpenBLAS picked at load time, e.g. `SkylakeX`, `Haswell`, or the slow fallback `Prescott`.
    public static var kernel: String { String(cString: openblas_get_corename()) }

    /// Whether OpenBLAS fell back to its SSE3 kernel although the CPU has AVX2: set `OPENBLAS_CORETYPE` to fix.
    public static var isFallbackKernel: Bool {
        // OpenBLAS 0.3.21 does not know newer Xeons (family 6 model 207) and drops to Prescott, 2-5× slower;
        // the kernel is chosen when the library loads, so only the environment of the process can change it.
        kernel == "Prescott" && cpuHasAVX2
    }

    /// The `OPENBLAS_CORETYPE` that fixes a fallback kernel on this CPU (`SkylakeX` with AVX-512, else `Haswell`),
    /// or nil when the kernel in use is fine.
    public static var suggestedCoreType: String? {
        guard isFallbackKernel else { return nil }
        return cpuFlags.contains("avx512f") ? "SkylakeX" : "Haswell"
    }

    /// OpenBLAS's build description and the kernel in use, for benchmark and `doctor` output.
    public static var configuration: String {
        // The build string names the baseline core of Debian's DYNAMIC_ARCH build, not the one in use.
        "\(String(cString: openblas_get_config())); kernel \(kernel)"
    }

    /// Applies `recommendedThreadCount` once per process, unless the user chose through the environment.
    static func applyDefaultOnce() {
        _ = defaultApplied
    }

    // A global `let` runs its initializer exactly once, thread-safely.
    private static let defaultApplied: Bool = {
        // OpenBLAS itself honours these three at load time; respect whichever the user set.
        let names: [String] = ["OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"]
        let chosen = names.contains { getenv($0) != nil }
        guard !chosen else { return false }
        openblas_set_num_threads(Int32(recommendedThreadCount))
        return true
    }()

    private static var cpuHasAVX2: Bool { cpuFlags.contains("avx2") }

    /// The first `flags` line of /proc/cpuinfo, split.
    private static var cpuFlags: [Substring] {
        guard let file = fopen("/proc/cpuinfo", "r") else { return [] }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 8192)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("flags") { return text.split(whereSeparator: { $0 == " " || $0 == "\n" }) }
        }
        return []
    }
}
