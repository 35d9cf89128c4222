@preconcurrency import Glibc
import TroveSystem

/// cblas.h's storage orders, with its values.
package struct CBLAS_ORDER: Sendable {
    let rawValue: Int32
}
package let CblasRowMajor = CBLAS_ORDER(rawValue: 101)

/// cblas.h's transpose choices, with its values.
package struct CBLAS_TRANSPOSE: Sendable {
    let rawValue: Int32
}
package let CblasNoTrans = CBLAS_TRANSPOSE(rawValue: 111)
package let CblasTrans = CBLAS_TRANSPOSE(rawValue: 112)

/// The OpenBLAS routines Trove calls, loaded on first use with `dlopen` instead of being linked.
///
/// OpenBLAS chooses its CPU kernel once, while it loads, from `OPENBLAS_CORETYPE` or its own table of CPUs.
/// Debian's 0.3.21 does not know newer Xeons and falls back to its SSE3 kernels, 2–4× slower
/// (BENCHMARKS.md#openblas-kernel). Loading it ourselves lets `KernelChoice` set that variable first, in every process
/// that uses Trove's libraries, with no second exec. A machine without OpenBLAS still runs the commands that need no
/// BLAS (`status`, `doctor`).
package enum BLAS {
    /// `C = alpha · op(A) · op(B) + beta · C`, as `cblas_sgemm`.
    @inline(__always)
    package static func sgemm(
        _ order: CBLAS_ORDER, _ transA: CBLAS_TRANSPOSE, _ transB: CBLAS_TRANSPOSE, _ m: Int32, _ n: Int32,
        _ k: Int32, _ alpha: Float, _ a: UnsafePointer<Float>?, _ lda: Int32, _ b: UnsafePointer<Float>?,
        _ ldb: Int32, _ beta: Float, _ c: UnsafeMutablePointer<Float>?, _ ldc: Int32
    ) {
        OpenBLASLibrary.shared.sgemm(order.rawValue, transA.rawValue, transB.rawValue, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
    }

    /// `y = alpha · op(A) · x + beta · y`, as `cblas_sgemv`.
    @inline(__always)
    package static func sgemv(
        _ order: CBLAS_ORDER, _ trans: CBLAS_TRANSPOSE, _ m: Int32, _ n: Int32, _ alpha: Float,
        _ a: UnsafePointer<Float>?, _ lda: Int32, _ x: UnsafePointer<Float>?, _ incX: Int32, _ beta: Float,
        _ y: UnsafeMutablePointer<Float>?, _ incY: Int32
    ) {
        OpenBLASLibrary.shared.sgemv(order.rawValue, trans.rawValue, m, n, alpha, a, lda, x, incX, beta, y, incY)
    }

    /// The dot product of `n` elements, as `cblas_sdot`.
    @inline(__always)
    package static func sdot(
        _ n: Int32, _ x: UnsafePointer<Float>?, _ incX: Int32, _ y: UnsafePointer<Float>?, _ incY: Int32
    ) -> Float {
        OpenBLASLibrary.shared.sdot(n, x, incX, y, incY)
    }

    /// Whether OpenBLAS can be loaded; when not, the reason, as one line that says what to install.
    package static var loadError: String? {
        if case .failure(let error) = OpenBLASLibrary.loaded { return error.message }
        return nil
    }

    /// Loads OpenBLAS (once) or throws why it cannot be: every entry point that will call BLAS calls this first,
    /// so a missing library is an error its caller reports, never the end of the process.
    package static func load() throws(BLASUnavailable) {
        if case .failure(let error) = OpenBLASLibrary.loaded { throw BLASUnavailable(message: error.message) }
    }
}

/// OpenBLAS cannot be loaded; the message says what to install. The CLI exits 69 (a missing service).
package struct BLASUnavailable: TroveError, Equatable {
    /// One line that says what to install.
    package let message: String

    /// A missing library is a missing service (exit 69).
    package var fault: Fault { .unavailable }
}

/// The library's entry points, resolved once.
struct OpenBLASLibrary: @unchecked Sendable {
    // @unchecked: immutable C function pointers into a library that is never unloaded.
    // The enums travel as C ints.
    typealias Sgemm = @convention(c) (
        Int32, Int32, Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32,
        UnsafePointer<Float>?, Int32, Float, UnsafeMutablePointer<Float>?, Int32
    ) -> Void
    typealias Sgemv = @convention(c) (
        Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32,
        Float, UnsafeMutablePointer<Float>?, Int32
    ) -> Void
    typealias Sdot = @convention(c) (Int32, UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32) -> Float
    typealias SetThreads = @convention(c) (Int32) -> Void
    typealias GetInt = @convention(c) () -> Int32
    typealias GetString = @convention(c) () -> UnsafeMutablePointer<CChar>?

    struct LoadError: Error {
        let message: String
    }

    /// The file names tried in order: the runtime package's soname, then the development symlink.
    static let candidates = ["libopenblas.so.0", "libopenblas.so"]

    let sgemm: Sgemm
    let sgemv: Sgemv
    let sdot: Sdot
    let setThreads: SetThreads
    let getThreads: GetInt
    let coreName: GetString
    let config: GetString

    /// A global `let` initialises once, thread-safely, on first use.
    static let loaded: Result<OpenBLASLibrary, LoadError> = load()

    /// The loaded library. Reaching it without one is a bug of the caller, which should have called `BLAS.load()`
    /// (it throws) before its first BLAS call.
    static var shared: OpenBLASLibrary {
        switch loaded {
        case .success(let library): return library
        case .failure(let error): preconditionFailure("BLAS called without a successful BLAS.load(): \(error.message)")
        }
    }

    private static func load() -> Result<OpenBLASLibrary, LoadError> {
        KernelChoice.prepareEnvironment()
        var reasons: [String] = []
        for name in candidates {
            // DEEPBIND: OpenBLAS's ~15,000 references to its own symbols resolve in itself first instead of being
            // looked up through the ~50 libraries of the process (Foundation, Swift runtime) before it; that lookup
            // was ~8 ms of a one-query `trove embed` (perf, BENCHMARKS.md#model-load). LAZY: each is bound on its first
            // call, not all at load (2.3-2.5 -> 1.7-1.9 ms for the dlopen alone, Zen 4); the entry points Trove calls
            // are looked up below, so a library without them is still refused here.
            guard let handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            do {
                return .success(try OpenBLASLibrary(handle: handle))
            } catch {
                return .failure(error)
            }
        }
        return .failure(
            LoadError(message: "cannot load OpenBLAS (\(reasons.first ?? "not found")) — install it: sudo apt-get install libopenblas0"))
    }

    private init(handle: UnsafeMutableRawPointer) throws(LoadError) {
        func symbol<T>(_ name: String, as type: T.Type) throws(LoadError) -> T {
            guard let address = dlsym(handle, name) else {
                throw LoadError(message: "the OpenBLAS library found lacks \(name) — reinstall it: sudo apt-get install --reinstall libopenblas0")
            }
            return unsafeBitCast(address, to: type)
        }
        sgemm = try symbol("cblas_sgemm", as: Sgemm.self)
        sgemv = try symbol("cblas_sgemv", as: Sgemv.self)
        sdot = try symbol("cblas_sdot", as: Sdot.self)
        setThreads = try symbol("openblas_set_num_threads", as: SetThreads.self)
        getThreads = try symbol("openblas_get_num_threads", as: GetInt.self)
        coreName = try symbol("openblas_get_corename", as: GetString.self)
        config = try symbol("openblas_get_config", as: GetString.self)
    }
}
