import Synchronization

/// An atomic counter that a `@Sendable` closure can bump.
final class Counter: Sendable {
    private let atomic = Atomic<Int>(0)
    func increment() { atomic.add(1, ordering: .relaxed) }
    var value: Int { atomic.load(ordering: .relaxed) }
}
