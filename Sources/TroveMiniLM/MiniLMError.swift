/// Why the built-in model could not load or run.
public struct MiniLMError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure.
    public enum Code: String, Sendable {
        /// A model file is absent.
        case missingFile
        /// A file is there but its content is not what the model needs.
        case badFile
        /// The input cannot be embedded.
        case badInput
    }

    public var code: Code
    /// One lowercase line that says what is wrong and what to do.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
