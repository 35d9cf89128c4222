import Synchronization

/// A request to stop a long run early (Ctrl-C, SIGTERM), checked between transactions.
///
/// A flag rather than task cancellation: cancelling would abort the embedding request in flight and could land
/// between two statements of a batch; the indexer instead finishes the transaction it is in and returns.
public final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A signal nobody has raised yet.
    public init() {}

    /// Asks the run to stop after its current transaction.
    public func stop() { flag.store(true, ordering: .releasing) }

    /// Whether `stop()` was called.
    public var isStopped: Bool { flag.load(ordering: .acquiring) }
}
