import Foundation

/// A `Duration` in the units this module's callers need, converted in one place (the module stands alone, so it
/// keeps its own copy of what TroveKit's `Duration.seconds` does).
extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds, as Ollama counts durations.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
