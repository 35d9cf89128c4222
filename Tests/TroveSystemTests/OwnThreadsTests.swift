import Dispatch
import Foundation
import Synchronization
import Testing
import TroveSystem

@Suite("Work on threads of its own")
struct OwnThreadsTests {
    @Test("every iteration runs once, the first on the caller, and all at once however many there are")
    func allAtOnce() {
        // Eight iterations meet at a barrier: they can pass it only if all eight run together, which a pool of one
        // thread per core (concurrentPerform's) cannot do. The barrier gives up after a minute rather than hang.
        let iterations = 8
        let arrived = Atomic(0)
        let runs = Mutex([Int](repeating: 0, count: iterations))
        let caller = Thread.current
        let onCaller = Mutex<Int?>(nil)
        let met = Mutex(true)
        onOwnThreads(iterations) { iteration in
            runs.withLock { $0[iteration] += 1 }
            if Thread.current == caller { onCaller.withLock { $0 = iteration } }
            arrived.add(1, ordering: .sequentiallyConsistent)
            let deadline = ContinuousClock.now + .seconds(60)
            while arrived.load(ordering: .sequentiallyConsistent) < iterations {
                if ContinuousClock.now > deadline {
                    met.withLock { $0 = false }
                    return
                }
                usleep(100)
            }
        }
        #expect(met.withLock { $0 }, "the iterations never all ran at once")
        #expect(runs.withLock { $0 } == [Int](repeating: 1, count: iterations))
        #expect(onCaller.withLock { $0 } == 0)
    }

    @Test("a thousand short runs: none returns while a helper still holds its body")
    func shortRuns() {
        // `body` is not escaping, so nothing may hold it once a run returns. A helper that had called it can still
        // hold it for a moment after the wait is over: with a thread started per iteration, that stopped the process
        // ("non-escaping closure has escaped") once in a whole test run, and in most runs of this loop.
        let total = Atomic(0)
        for _ in 0..<1000 { onOwnThreads(4) { _ in total.add(1, ordering: .relaxed) } }
        #expect(total.load(ordering: .relaxed) == 4000)
    }

    @Test("CPU work on its own threads leaves the cooperative pool free")
    func poolStaysFree() async {
        // As many pieces of CPU work as the pool has threads (one per core), each spinning until released. Through
        // DispatchQueue.global(), the pool's own threads on Linux, a task could not run until they were released
        // (dispatch adds threads for blocked ones, not for busy ones); here it runs as soon as the pool has a thread
        // free, which in a whole test run can take a minute. The spinners yield, so that meanwhile they cost the
        // other tests little, and a watchdog releases them after five minutes: a failure is reported, not hung.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let released = Flag()
        let works = (0..<cores).map { _ in
            Task { await onOwnThread { while !released.isSet { sched_yield() } } }
        }
        let watchdog = Thread {
            Thread.sleep(forTimeInterval: 300)
            released.set()
        }
        watchdog.start()
        // The works are spinning (or about to) when the task below is started.
        try? await Task.sleep(for: .milliseconds(200))
        let ranWhileHeld = await Task.detached(priority: .medium) { !released.isSet }.value
        released.set()
        for work in works { await work.value }
        #expect(ranWhileHeld, "a task waited for work that should hold none of the pool's threads")
    }
}

/// A flag threads share.
private final class Flag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
