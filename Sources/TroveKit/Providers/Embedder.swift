import TroveStore

/// Turns texts into vectors: Ollama, an OpenAI-compatible server or the built-in model.
public protocol Embedder: Sendable {
    /// Who embeds: recorded in the index fingerprint.
    var provider: Provider { get }
    /// The model name as the user gave it, e.g. `nomic-embed-text`.
    var model: String { get }
    /// Checks the model can embed and reports what the fingerprint needs.
    func inspect() async throws -> EmbedderInfo
    /// One unit-length vector per text, in order.
    func embed(_ texts: [String]) async throws -> [[Float]]
}

/// What an embedder tells about its model before any text is sent.
public struct EmbedderInfo: Sendable, Equatable {
    /// Vector length.
    public var dimension: Int
    /// Tokens the model reads at most; chunks are sized below it.
    public var contextLength: Int?
    /// Identifies the weights, so a re-pull under the same name is noticed.
    public var digest: String?

    public init(dimension: Int, contextLength: Int?, digest: String?) {
        self.dimension = dimension
        self.contextLength = contextLength
        self.digest = digest
    }
}
