import Synchronization

/// A request to stop a long run early (Ctrl-C, SIGTERM), checked between transactions.
///
/// A flag rather than task cancellation: cancelling would abort the embedding request in flight and could land
/// between two statements of a batch; the indexer instead finishes the transaction it is in and returns.
public final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)
    /// Called once when the signal is raised: a watcher blocked in `poll` is woken by one, never by polling the flag.
    private let handlers = Mutex<[@Sendable () -> Void]>([])

    /// A signal nobody has raised yet.
    public init() {}

    /// Asks the run to stop after its current transaction.
    public func stop() {
        flag.store(true, ordering: .releasing)
        for action in handlers.withLock({ current in
            defer { current = [] }
            return current
        }) { action() }
    }

    /// Runs `action` when the signal is raised (at once if it already was).
    public func whenStopped(_ action: @escaping @Sendable () -> Void) {
        let now = handlers.withLock { current -> Bool in
            if isStopped { return true }
            current.append(action)
            return false
        }
        if now { action() }
    }

    /// Whether `stop()` was called.
    public var isStopped: Bool { flag.load(ordering: .acquiring) }
}
