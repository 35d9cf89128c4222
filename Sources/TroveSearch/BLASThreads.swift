@preconcurrency import COpenBLAS
@preconcurrency import Glibc

/// OpenBLAS's process-wide thread count, which every searcher shares.
public enum BLASThreads {
    /// The count searchers apply on first use unless `OPENBLAS_NUM_THREADS` is set (see README/report: measured).
    public static let recommended = 1

    /// Threads OpenBLAS uses for one call.
    public static var current: Int { Int(openblas_get_num_threads()) }

    /// OpenBLAS's build description (version, core, threading), for benchmark and `doctor` output.
    public static var configuration: String { String(cString: openblas_get_config()) }

    /// Sets the thread count for the whole process (at least 1).
    public static func set(_ count: Int) {
        // Apply the default first so a later first searcher cannot overwrite an explicit choice.
        applyDefaultOnce()
        openblas_set_num_threads(Int32(Swift.max(1, count)))
    }

    /// Applies `recommended` once per process, unless the user chose through the environment.
    static func applyDefaultOnce() {
        _ = defaultApplied
    }

    // A global `let` runs its initializer exactly once, thread-safely.
    private static let defaultApplied: Bool = {
        guard getenv("OPENBLAS_NUM_THREADS") == nil else { return false }
        openblas_set_num_threads(Int32(recommended))
        return true
    }()
}
