import Ollama

/// How often and how patiently to retry a failed embedding request.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt (`--retries`); 0 never retries.
    public var retries: Int
    /// The wait before the first retry; each further retry doubles it, up to `maximumDelay`.
    public var baseDelay: Duration
    /// The longest wait between two attempts.
    public var maximumDelay: Duration

    /// A policy from its parts; the defaults wait about 0.5 s, 1 s, 2 s.
    public init(retries: Int = 3, baseDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(8)) {
        self.retries = max(0, retries)
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait before retry number `attempt` (0-based): exponential, with "equal jitter" (half fixed, half
    /// random) so that parallel requests that failed together do not all come back at the same instant.
    public func delay(beforeRetry attempt: Int, random: Double) -> Duration {
        let exponential = baseDelay * (1 << min(attempt, 20))
        let capped = min(exponential, maximumDelay)
        return capped / 2 + capped * (min(max(random, 0), 1) / 2)
    }

    /// Whether a failure may go away by itself: the connection broke, the server timed out, was busy (503) or
    /// failed (5xx). A 4xx, a missing model or a malformed reply will fail the same way again.
    public static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? OllamaError else { return false }
        switch error.kind {
        case .unreachable, .timeout, .serverBusy, .serverError: return true
        default: return false
        }
    }
}

/// Wraps an embedder so that transient failures are retried with exponential backoff and jitter.
package struct RetryingEmbedder: Embedder {
    /// The embedder that does the work.
    package let base: any Embedder
    /// When and how long to wait.
    package let policy: RetryPolicy
    /// Which failures to retry; `RetryPolicy.isTransient` by default.
    package let shouldRetry: @Sendable (any Error) -> Bool
    /// Told about each retry (for counting); runs on the requesting task.
    package let onRetry: @Sendable (any Error) -> Void

    /// Wraps `base`.
    package init(
        _ base: any Embedder, policy: RetryPolicy,
        shouldRetry: @escaping @Sendable (any Error) -> Bool = RetryPolicy.isTransient,
        onRetry: @escaping @Sendable (any Error) -> Void = { _ in }
    ) {
        self.base = base
        self.policy = policy
        self.shouldRetry = shouldRetry
        self.onRetry = onRetry
    }

    package var provider: Provider { base.provider }
    package var model: String { base.model }

    /// Retries only a busy server: a refused connection at the start is answered at once, with the fix.
    package func inspect() async throws -> EmbedderInfo {
        try await attempt(only: { ($0 as? OllamaError)?.kind == .serverBusy }) { try await base.inspect() }
    }

    package func embed(_ texts: [String]) async throws -> [[Float]] {
        try await attempt { try await base.embed(texts) }
    }

    private func attempt<T>(
        only filter: (any Error) -> Bool = { _ in true }, _ body: () async throws -> T
    ) async throws -> T {
        var failures = 0
        while true {
            do {
                return try await body()
            } catch {
                guard failures < policy.retries, shouldRetry(error), filter(error), !Task.isCancelled else { throw error }
                onRetry(error)
                try? await Task.sleep(for: policy.delay(beforeRetry: failures, random: Double.random(in: 0...1)))
                failures += 1
            }
        }
    }
}
