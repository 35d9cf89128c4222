/// A search request with a parameter out of range.
public struct SearchRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A lowercase sentence naming the parameter, its range and the value found.
    public var message: String

    /// An error with its message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
