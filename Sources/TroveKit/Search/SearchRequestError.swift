import TroveSystem

/// A search request with a parameter out of range.
public struct SearchRequestError: TroveError, Equatable {
    /// A lowercase sentence naming the parameter, its range and the value found.
    public var message: String

    /// An error with its message.
    public init(_ message: String) { self.message = message }

    /// Who is at fault: the request (exit 64).
    public var fault: Fault { .usage }
}
