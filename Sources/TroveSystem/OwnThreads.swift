import Dispatch

/// Runs `body` for `0..<iterations` at once, iteration 0 on the calling thread and each other on a queue of its own,
/// and returns when every one has finished.
///
/// This replaces `DispatchQueue.concurrentPerform` for seconds of CPU work. On Linux, dispatch's helper threads for
/// it (and `DispatchQueue.global()`'s) belong to the root queue that Swift's cooperative pool runs on: one thread per
/// core. A batch fanned out there holds the pool for as long as it runs, and every `async` function of the process
/// waits (a server's other requests, a test's timeouts): dispatch adds threads for blocked ones, not for busy ones.
/// A queue of one's own runs on dispatch's overcommitting threads instead, which it adds whenever all are busy and
/// keeps for reuse: 25-130 µs a hand-off on these machines, where starting a thread took 0.4-1 ms.
public func onOwnThreads(_ iterations: Int, _ body: (Int) -> Void) {
    guard iterations > 1 else {
        if iterations == 1 { body(0) }
        return
    }
    withoutActuallyEscaping(body) { body in
        let shared = SharedBody(run: body)
        let finished = DispatchGroup()
        for iteration in 1..<iterations {
            DispatchQueue(label: "trove.own-thread").async(group: finished) { shared.run?(iteration) }
        }
        body(0)
        finished.wait()
        // A queue's block may not have let go of its closure yet: `body` must be held by nothing when this returns.
        shared.run = nil
    }
}

/// `work`'s result, computed on a queue of its own while the caller's task is suspended: the way into seconds of
/// CPU work from an `async` function without holding a thread of the cooperative pool (see `onOwnThreads`).
public func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        DispatchQueue(label: "trove.own-thread").async { continuation.resume(returning: work()) }
    }
}

private final class SharedBody: @unchecked Sendable {
    // @unchecked: `run` is read on the queues, then cleared by `onOwnThreads` once every one has finished with it.
    var run: ((Int) -> Void)?
    init(run: @escaping (Int) -> Void) { self.run = run }
}
