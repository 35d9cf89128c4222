extension Duration {
    /// The duration in seconds as a `Double` (also for the CLI's progress lines).
    package var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
