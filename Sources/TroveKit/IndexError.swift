import TroveSystem

/// Failures of using an index: it is empty, or it was built differently from what is asked now.
public struct IndexError: TroveError, Equatable {
    public enum Code: Sendable, Equatable {
        case empty, modelMismatch, dimensionMismatch, chunkerMismatch, embedderMismatch, noRoots
        /// The model's weights changed under the same name (`ollama pull`); `--reembed` rebuilds the vectors.
        case digestMismatch
        /// The model refused a stored chunk while re-embedding.
        case notEmbeddable
    }

    public var code: Code
    /// A lowercase sentence naming both sides and the command that fixes it.
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    static func empty(_ path: String) -> IndexError {
        IndexError(code: .empty, message: "index \(path) is empty — run: trove index FOLDER")
    }

    static func dimension(expected: Int, got: Int, model: String) -> IndexError {
        IndexError(
            code: .dimensionMismatch,
            message: "model '\(model)' returned a vector of the wrong length: expected \(expected), got \(got)")
    }
}
