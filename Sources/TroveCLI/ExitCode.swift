import TroveSystem

/// The process exit statuses, as documented in `trove help`.
enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    /// Ollama unreachable or a model not pulled (sysexits' EX_UNAVAILABLE).
    static let unavailable: Int32 = 69
    static let interrupted: Int32 = 130

    /// The status for `error`, from its fault (`TroveError`).
    static func forError(_ error: any Error) -> Int32 {
        switch Fault(error) {
        case .usage: usage
        case .unavailable: unavailable
        case .interrupted: interrupted
        case .failure: failure
        }
    }
}
