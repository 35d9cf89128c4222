@preconcurrency import Glibc

/// Which OpenBLAS kernel to ask for, from the instruction sets the CPU reports.
///
/// OpenBLAS's own choice goes by CPU model, and a release older than the CPU (Debian's 0.3.21 on Xeons of family 6
/// model 207) falls back to SSE3 `Prescott`: sgemv 2×, sgemm 4× slower here. The instruction sets decide what a
/// kernel needs, so Trove asks for the best one they allow; the single-precision kernels behind `SkylakeX` are the
/// ones OpenBLAS itself uses on every AVX-512 CPU it knows, as `Haswell`'s are on AVX2 ones.
package enum KernelChoice {
    /// The `OPENBLAS_CORETYPE` for a CPU with `flags`, or nil to leave the choice to OpenBLAS.
    package static func coreType(forCPUFlags flags: Set<Substring>) -> String? {
        if flags.isSuperset(of: CPU.avx512) { return "SkylakeX" }
        if flags.isSuperset(of: CPU.avx2) { return "Haswell" }
        return nil
    }

    /// What decided the kernel: Trove (the core type it set), the user's `OPENBLAS_CORETYPE`, or OpenBLAS alone.
    package enum Decision: Sendable, Equatable {
        case chosen(String)
        case userSet(String)
        case leftToOpenBLAS
    }

    /// Sets `OPENBLAS_CORETYPE` for this CPU and `OPENBLAS_THREAD_TIMEOUT`, each unless the user set it; the first
    /// call decides, later ones return it. OpenBLAS loads lazily and calls this itself; a program with threads of its
    /// own should call it first thing in `main`, because `setenv` is not safe while other threads read the environment.
    @discardableResult
    package static func prepareEnvironment() -> Decision {
        _ = idleWorkersSleep
        return decision
    }

    /// OpenBLAS's workers spin (`sched_yield`) for 2^28 cycles, ~0.1 s, after each threaded call before they sleep.
    /// A warm server's vector scan left one spinning through the next query's embedding, whose two lanes then shared
    /// two cores with it; 2^20 cycles (~0.4 ms) lets a burst of calls keep them awake and frees the core soon after.
    private static let idleWorkersSleep: Void = { setenv("OPENBLAS_THREAD_TIMEOUT", "20", 0) }()

    private static let decision: Decision = {
        if let set = getenv("OPENBLAS_CORETYPE") { return .userSet(String(cString: set)) }
        guard let coreType = coreType(forCPUFlags: CPU.flags) else { return .leftToOpenBLAS }
        // Kept for child processes too: a `trove` started by this one then runs the same kernel.
        setenv("OPENBLAS_CORETYPE", coreType, 1)
        return .chosen(coreType)
    }()
}
