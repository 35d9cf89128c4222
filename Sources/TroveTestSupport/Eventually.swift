import Foundation

/// Asks `probe` every `interval` until it gives a value or `seconds` have passed, then once more after the deadline.
///
/// The last look matters: a test on the cooperative pool can be kept from running for longer than its whole wait
/// (on a 2-core machine two busy tests hold the pool; a CI run saw ~100 s), and a loop that only looks before the
/// deadline then reports that something never happened when it happened long ago.
public func poll<Value>(
    within seconds: Double, every interval: Duration = .milliseconds(20), _ probe: () async throws -> Value?
) async rethrows -> Value? {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if let value = try await probe() { return value }
        try? await Task.sleep(for: interval)
    }
    return try await probe()
}

/// Whether `condition` holds within `seconds` (or at the look after them: see `poll`). A condition that throws
/// (a file or an index not there yet) has not held yet.
public func eventually(
    within seconds: Double = 240, every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async -> Bool {
    await poll(within: seconds, every: interval) { (try? await condition()) == true ? true : nil } ?? false
}
