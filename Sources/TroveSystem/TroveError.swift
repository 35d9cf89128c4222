/// Who is at fault when something fails, and so how a front end reports it (the CLI maps each to an exit code).
public enum Fault: Sendable, Equatable, CaseIterable {
    /// The command line or a request was wrong (exit 64).
    case usage
    /// A model server is unreachable, or a model or a library is missing or cannot do the job (exit 69).
    case unavailable
    /// The user stopped it (exit 130).
    case interrupted
    /// Anything else (exit 1).
    case failure

    /// The fault of any error: a `TroveError`'s own, a cancelled task's (`interrupted`), else `failure`. The one
    /// place a front end turns an error into a way to report it.
    package init(_ error: any Error) {
        if let error = error as? any TroveError {
            self = error.fault
        } else if error is CancellationError {
            self = .interrupted
        } else {
            self = .failure
        }
    }
}

/// The one shape of Trove's errors: a sentence that says what happened (lowercase, specific, with the value or path),
/// who is at fault, and a hint when there is one. `description` is what a front end prints.
public protocol TroveError: Error, Sendable, CustomStringConvertible {
    /// The sentence.
    var message: String { get }
    /// How a front end reports it.
    var fault: Fault { get }
    /// What to do about it, when that is not already in the sentence.
    var hint: String? { get }
}

extension TroveError {
    public var fault: Fault { .failure }
    public var hint: String? { nil }
    public var description: String { hint.map { "\(message) — \($0)" } ?? message }
}
