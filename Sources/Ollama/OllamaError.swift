/// Every failure of the Ollama client. CONTRACT STUB: the Ollama helper completes it.
public struct OllamaError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, coarse enough to choose an exit code or a retry.
    public enum Kind: Sendable, Equatable {
        case unreachable, timeout, modelMissing, notCapable, badRequest, serverBusy, serverError, decoding,
            unexpectedResponse, cancelled
    }

    public var kind: Kind
    /// A lowercase sentence a user can act on.
    public var message: String
    /// The path that failed, e.g. `/api/embed`.
    public var endpoint: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// Ollama's own `{"error": ...}` text, kept verbatim.
    public var serverMessage: String?

    public init(kind: Kind, message: String, endpoint: String, status: Int? = nil, serverMessage: String? = nil) {
        self.kind = kind
        self.message = message
        self.endpoint = endpoint
        self.status = status
        self.serverMessage = serverMessage
    }

    public var description: String { message }
}

extension OllamaError {
    /// The error for a model that cannot embed, whoever finds out (the server, or `/api/show`'s capabilities).
    public static func notCapable(model: String, endpoint: String) -> OllamaError { fatalError("unimplemented") }
}
