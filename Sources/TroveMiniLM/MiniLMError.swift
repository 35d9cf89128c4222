import TroveSystem

/// Why the built-in model could not load or run.
package struct MiniLMError: TroveError, Equatable {
    /// What kind of failure.
    package enum Code: String, Sendable {
        /// A model file is absent.
        case missingFile
        /// A file is there but its content is not what the model needs.
        case badFile
        /// The input cannot be embedded.
        case badInput
    }

    package var code: Code
    /// One lowercase line that says what is wrong and what to do.
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A missing model file is a missing service (exit 69): `trove doctor` says how to get it.
    package var fault: Fault { code == .missingFile ? .unavailable : .failure }
}
