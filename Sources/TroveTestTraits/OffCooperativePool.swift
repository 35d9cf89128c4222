@preconcurrency import Glibc
import Dispatch
import Testing

/// Runs a test (or every test of a suite) off Swift's cooperative pool: its body, sync or async, and every child
/// task it starts run on threads of their own, so seconds of synchronous CPU work (the MiniLM encoder, BLAS scoring,
/// indexing a fixture) never hold one of the pool's threads. On a 2-core machine the pool has two threads; tests
/// that held both stalled every other test for ~20 s at the start of the suite, and timing-sensitive tests
/// (promptness bounds, Ctrl-C, cancellation) failed for it.
///
///     @Suite(.offCooperativePool) struct EncoderTests { … }
public struct OffCooperativePool: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite it is given to.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !Self.onPool else { return try await function() }
        try await withTaskExecutorPreference(DedicatedThreads.shared) { try await function() }
    }

    /// `TROVE_TESTS_ON_POOL=1` leaves these tests on the cooperative pool, as before the trait: to measure what it
    /// changes with the same build (`swift test` wall time, and how long trivial tests wait).
    static let onPool = getenv("TROVE_TESTS_ON_POOL").map { String(cString: $0) } == "1"
}

extension Trait where Self == OffCooperativePool {
    /// Runs the test off the cooperative pool: see `OffCooperativePool`.
    public static var offCooperativePool: Self { OffCooperativePool() }
}

/// A task executor whose jobs never wait for a busy thread: each runs on a serial dispatch queue of its own, and
/// such queues are served by libdispatch's overcommitting threads, which it adds whenever all are busy. The OS
/// then shares the cores between these threads and the cooperative pool's, instead of queueing work behind them.
final class DedicatedThreads: TaskExecutor {
    static let shared = DedicatedThreads()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue(label: "trove.tests.off-cooperative-pool").async { job.runSynchronously(on: executor) }
    }
}
