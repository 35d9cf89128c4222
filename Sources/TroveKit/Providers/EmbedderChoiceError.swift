import TroveSystem

/// An impossible `--embedder`/`--model` combination.
public struct EmbedderChoiceError: TroveError, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
