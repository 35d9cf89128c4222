import Foundation

/// An Ollama look-alike speaking real HTTP/1.1 on a loopback port, for tests and benchmarks.
/// CONTRACT STUB: the Ollama helper completes it.
public final class FakeOllamaServer: @unchecked Sendable {  // state behind a lock; the listener runs on its own thread
    /// How the server misbehaves; `.normal` answers like Ollama.
    public enum Fault: Sendable, Equatable {
        case normal
        /// Every request to /api/* answers with this status and `{"error": message}`.
        case status(Int, message: String)
        /// 200 with a body that is not JSON.
        case malformedJSON
        /// Embeddings of `dimension + 1` floats.
        case wrongDimension
        /// One embedding fewer than inputs.
        case wrongCount
        /// Sleeps before answering.
        case delay(milliseconds: Int)
    }

    /// A model the server knows.
    public struct Model: Sendable, Equatable {
        public var name: String
        public var dimension: Int
        public var contextLength: Int
        public var capabilities: [String]
        public var digest: String

        public static func embedding(_ name: String, dimension: Int = 64, contextLength: Int = 2048) -> Model {
            fatalError("unimplemented")
        }
    }

    /// Starts listening on 127.0.0.1 at a free port.
    public init(models: [Model] = [.embedding("nomic-embed-text")]) throws { fatalError("unimplemented") }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { fatalError("unimplemented") }
    public var fault: Fault {
        get { fatalError("unimplemented") }
        set { fatalError("unimplemented") }
    }
    /// Number of texts embedded so far.
    public var embeddedInputCount: Int { fatalError("unimplemented") }
    public func stop() { fatalError("unimplemented") }

    /// The deterministic vector the server returns for `text`: a normalized hashed bag of lowercased words.
    public static func embedding(for text: String, dimension: Int) -> [Float] { fatalError("unimplemented") }
}
