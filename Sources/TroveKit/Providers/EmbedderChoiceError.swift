/// An impossible `--embedder`/`--model` combination.
public struct EmbedderChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
