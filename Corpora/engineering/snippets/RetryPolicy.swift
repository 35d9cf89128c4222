// RetryPolicy.swift
// Small helper from the Fernbill iOS app: retry an async operation with
// exponential backoff and full jitter. Used for invoice uploads on flaky
// mobile connections.

import Foundation

struct RetryPolicy: Sendable {
    var maxAttempts = 4
    var baseDelay: Duration = .milliseconds(250)
    var maxDelay: Duration = .seconds(8)

    /// Delay before attempt `n` (1-based, so the first retry is n == 2).
    /// Full jitter: a random value between zero and the capped exponential delay.
    func delay(beforeAttempt n: Int) -> Duration {
        let exponent = max(0, n - 2)
        let capped = min(baseDelay * (1 << exponent), maxDelay)
        let millis = capped.components.seconds * 1000
            + capped.components.attoseconds / 1_000_000_000_000_000
        return .milliseconds(Int64.random(in: 0...max(1, millis)))
    }

    /// Runs `operation`, retrying when `shouldRetry` says the error is transient.
    func run<T: Sendable>(
        shouldRetry: (Error) -> Bool = { ($0 as? URLError)?.code == .timedOut },
        _ operation: () async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch where attempt < maxAttempts && shouldRetry(error) {
                attempt += 1
                try await Task.sleep(for: delay(beforeAttempt: attempt))
            }
        }
    }
}

// Example:
// let invoice = try await RetryPolicy().run { try await api.upload(draft) }
