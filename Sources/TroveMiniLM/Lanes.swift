import Foundation
import Synchronization

/// Threads that stay awake through one forward pass, for splitting its products between lanes.
///
/// A query's pass splits ~40 products and attention steps between two lanes. Handed to `concurrentPerform`, each
/// split woke a sleeping worker and put it back to sleep: ~15 µs a split on these machines (`perf`: futex wake-ups
/// and the scheduler, ~6% of a warm search's CPU time). Here each partner thread spins for the next split for a
/// short while (`spin`) after finishing one, and only then parks; a pass's splits follow each other within
/// microseconds, so a partner is woken once per pass at most.
final class Lanes: Sendable {
    /// Lanes a `run` can use: the caller's and one per partner thread.
    let count: Int
    /// How long a partner spins for the next split before it parks.
    static let spin: Duration = .microseconds(200)
    /// How long `run` spins for its partners to finish before it yields its core to them.
    static let patience: Duration = .milliseconds(2)

    /// What the partner threads share with `run`; they hold it, not the `Lanes`, so that dropping it stops them.
    let state: State

    /// Starts `count - 1` partner threads.
    init(count: Int) {
        self.count = max(1, count)
        state = State(partners: self.count - 1)
        for lane in 1..<self.count {
            Thread { [state] in state.serve(lane: lane) }.start()
        }
    }

    deinit { state.stop() }

    /// Runs `body` for lanes 0..<`lanes` at once, lane 0 on the calling thread; false (nothing run) when `lanes` is
    /// neither 1 nor `count`, or another `run` holds the partners.
    func run(_ lanes: Int, _ body: (Int) -> Void) -> Bool {
        guard lanes == count || lanes == 1 else { return false }
        guard lanes > 1 else {
            body(0)
            return true
        }
        return withoutActuallyEscaping(body) { state.run($0) }
    }

    final class State: @unchecked Sendable {
        // @unchecked: `body` is written by `run` before it publishes a new `generation` (sequentially consistent)
        // and read by partners only after they have seen it; `run` returns only after every partner has finished
        // with it (`finished`).
        private let generation = Atomic<Int>(0)
        private let finished = Atomic<Int>(0)
        private let stopping = Atomic<Bool>(false)
        /// Taken by a `run` for its whole length: one pass at a time uses the partners.
        private let busy = Atomic<Bool>(false)
        private let partners: [Partner]
        private nonisolated(unsafe) var body: ((Int) -> Void)?

        /// One partner thread's parking place: `parkedAfter` (under its lock) is the generation it had served when
        /// it parked, waiting, or about to wait, on `wake`; nil while it is awake.
        private final class Partner: Sendable {
            let parkedAfter = Mutex<Int?>(nil)
            let wake = DispatchSemaphore(value: 0)
        }

        init(partners: Int) { self.partners = (0..<partners).map { _ in Partner() } }

        /// Publishes `body`, runs lane 0 and waits for the partners; false when another run holds them.
        func run(_ body: @escaping (Int) -> Void) -> Bool {
            guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
                return false
            }
            defer { busy.store(false, ordering: .releasing) }
            self.body = body
            finished.store(0, ordering: .relaxed)
            publish()
            body(0)
            // The partners finish within microseconds of lane 0 unless one lost its core: only then, past
            // `patience`, yield this one. (Yielding after a few thousand spins cost 8% of a warm search's CPU time
            // in `sched_yield` calls, `perf`.)
            let clock = ContinuousClock()
            var deadline: ContinuousClock.Instant?
            var checks = 0
            while finished.load(ordering: .acquiring) < partners.count {
                checks += 1
                guard checks % 1024 == 0 else { continue }  // a clock read costs ~10 loads
                let now = clock.now
                if let deadline {
                    if now > deadline { sched_yield() }
                } else {
                    deadline = now + Lanes.patience
                }
            }
            self.body = nil
            return true
        }

        func stop() {
            stopping.store(true, ordering: .sequentiallyConsistent)
            publish()
        }

        /// A new generation, and a signal for each partner parked before it. A partner may have served the new
        /// generation and parked again before this loop gets to it: that one waits for the next and is left alone.
        private func publish() {
            let new = generation.add(1, ordering: .sequentiallyConsistent).newValue
            for partner in partners {
                let waitsForThis = partner.parkedAfter.withLock { parkedAfter in
                    guard let served = parkedAfter, served < new else { return false }
                    parkedAfter = nil
                    return true
                }
                if waitsForThis { partner.wake.signal() }
            }
        }

        private let running = Atomic<Int>(0)
        /// Partner threads in `serve`: the tests check that dropping the `Lanes` stops them.
        var runningPartners: Int { running.load(ordering: .relaxed) }

        /// A partner's loop: wait for a new generation, run its lane of `body`, count itself finished.
        func serve(lane: Int) {
            running.add(1, ordering: .relaxed)
            defer { running.subtract(1, ordering: .relaxed) }
            let partner = partners[lane - 1]
            // Not the current generation: a run published before this thread got here is still to be served.
            var seen = 0
            while true {
                seen = waitForWork(after: seen, partner)
                if stopping.load(ordering: .sequentiallyConsistent) { return }
                runBody(lane)
                finished.add(1, ordering: .releasing)
            }
        }

        /// Calls `body` in a function of its own, so that this thread's reference to it is released before the
        /// partner counts itself finished (`run`'s caller checks that the closure did not escape).
        @inline(never)
        private func runBody(_ lane: Int) { body?(lane) }

        /// Spins for a generation after `seen`, then parks. `parkedAfter` is set under its lock only while
        /// `generation` is still `seen`, and `publish` adds to `generation` before it takes that lock: either this
        /// sees the new generation, or `publish` finds it parked and signals `wake`, once for each time it parked.
        private func waitForWork(after seen: Int, _ partner: Partner) -> Int {
            let clock = ContinuousClock()
            let deadline = clock.now + Lanes.spin
            var checks = 0
            while true {
                let current = generation.load(ordering: .sequentiallyConsistent)
                if current != seen { return current }
                checks += 1
                if checks % 1024 == 0, clock.now > deadline { break }
            }
            let parks = partner.parkedAfter.withLock { parkedAfter in
                guard generation.load(ordering: .sequentiallyConsistent) == seen else { return false }
                parkedAfter = seen
                return true
            }
            if parks { partner.wake.wait() }
            return generation.load(ordering: .sequentiallyConsistent)
        }
    }
}
