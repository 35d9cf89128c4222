@preconcurrency import Glibc
import Synchronization

/// OpenBLAS's process-wide settings that every caller shares: thread count and the CPU kernel in use.
package enum BLASRuntime {
    /// The thread count searchers apply on first use unless `OPENBLAS_NUM_THREADS` (or `GOTO_`/`OMP_NUM_THREADS`) is set: 2, or 1 on one CPU.
    // Measured with `trove-bench search --sizes 10000,100000,1000000 --dims 384 --threads 1,2` on 2 vCPUs.
    // Idle machine (load ≈ 2, the benchmark itself): 2 threads cut p50 1.7–2× (10k 0.63 → 0.32 ms, 100k 11.9 →
    // 6.6 ms, 1M 126 → 75 ms) and raised sgemm batch throughput 1.4–1.6×. Under heavy contention (load ≈ 5,
    // other builds) p50 was equal, p95 sometimes worse. Interactive search usually has idle cores, so take 2;
    // more than 2 was not measured (at 1M, 2 threads already reach ~20 GB/s, near memory bandwidth).
    package static var recommendedThreadCount: Int {
        Swift.min(2, Swift.max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Threads OpenBLAS uses for one call.
    package static var threadCount: Int { Int(OpenBLASLibrary.shared.getThreads()) }

    /// Sets the thread count for the whole process (at least 1). While `withThreadCount` bodies run it is kept
    /// for when the last of them ends, so the caller never waits.
    package static func setThreadCount(_ count: Int) {
        // Apply the default first so a later first searcher cannot overwrite an explicit choice.
        applyDefaultOnce()
        let wanted = Int32(Swift.max(1, count))
        override.withLock { state in
            if state.users > 0 { state.restore = wanted } else { OpenBLASLibrary.shared.setThreads(wanted) }
        }
    }

    /// Runs `body` with the process-wide thread count set to `count`, then restores the count it found. Bodies
    /// that overlap share the count of the first one (every caller asks for 1: an encoder, the probe) and the
    /// last one to end restores it. Only the change is under the lock, never the body: an embedding that held it
    /// would stall every search that sets its count, and on a small thread pool everything else with it.
    package static func withThreadCount(_ count: Int, _ body: () -> Void) {
        applyDefaultOnce()
        let library = OpenBLASLibrary.shared
        override.withLock { state in
            if state.users == 0 {
                state.restore = library.getThreads()
                library.setThreads(Int32(Swift.max(1, count)))
            }
            state.users += 1
        }
        defer {
            override.withLock { state in
                state.users -= 1
                if state.users == 0 { library.setThreads(state.restore) }
            }
        }
        body()
    }

    /// How many `withThreadCount` bodies run, and the count to restore when the last one ends.
    private static let override = Mutex((users: 0, restore: Int32(1)))

    /// The CPU kernel OpenBLAS runs, e.g. `SkylakeX`, `Haswell`, or the slow generic `Prescott`.
    package static var kernel: String { OpenBLASLibrary.shared.coreName().map { String(cString: $0) } ?? "unknown" }

    /// Why that kernel: chosen by Trove for this CPU, set by the user, or OpenBLAS's own choice.
    package static var kernelDecision: KernelChoice.Decision { KernelChoice.prepareEnvironment() }

    /// Whether OpenBLAS runs its SSE3 kernel on a CPU that could run a faster one (only when the user forced it).
    package static var isSlowKernel: Bool {
        kernel == "Prescott" && KernelChoice.coreType(forCPUFlags: CPU.flags) != nil
    }

    /// OpenBLAS's build description, the kernel in use and why, for benchmark and `doctor` output.
    package static var configuration: String {
        // The build string names the baseline core of Debian's DYNAMIC_ARCH build, not the one in use.
        let build = OpenBLASLibrary.shared.config().map { String(cString: $0) } ?? "OpenBLAS"
        let reason =
            switch kernelDecision {
            case .chosen: "chosen by Trove for this CPU"
            case .userSet(let value): "OPENBLAS_CORETYPE=\(value)"
            case .leftToOpenBLAS: "OpenBLAS's own choice"
            }
        return "\(build); kernel \(kernel) (\(reason))"
    }

    /// Applies `recommendedThreadCount` once per process, unless the user chose through the environment.
    package static func applyDefaultOnce() {
        _ = defaultApplied
    }

    // A global `let` runs its initializer exactly once, thread-safely.
    private static let defaultApplied: Bool = {
        // OpenBLAS itself honours these three at load time; respect whichever the user set.
        let names: [String] = ["OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"]
        let chosen = names.contains { getenv($0) != nil }
        guard !chosen else { return false }
        OpenBLASLibrary.shared.setThreads(Int32(recommendedThreadCount))
        return true
    }()
}
