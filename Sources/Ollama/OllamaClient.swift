import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client for one Ollama server. CONTRACT STUB: the Ollama helper replaces the bodies, keeps the signatures.
public struct OllamaClient: Sendable {
    /// Where the server listens, e.g. `http://127.0.0.1:11434`.
    public var baseURL: URL
    /// How long one request may stay idle before it fails with `.timeout`.
    public var requestTimeout: Duration

    public init(baseURL: URL, requestTimeout: Duration = .seconds(300)) {
        self.baseURL = baseURL
        self.requestTimeout = requestTimeout
    }

    /// `POST /api/embed`: one vector per input, in order; checks the count.
    public func embed(_ request: EmbedRequest) async throws -> EmbedResponse { fatalError("unimplemented") }
    /// `GET /api/tags`: the models pulled on the server.
    public func tags() async throws -> [ModelSummary] { fatalError("unimplemented") }
    /// `POST /api/show`: details, capabilities and `model_info` of one model.
    public func show(model: String) async throws -> ModelDetails { fatalError("unimplemented") }
    /// `GET /api/version`.
    public func version() async throws -> String { fatalError("unimplemented") }
}

extension OllamaClient {
    /// Body of `POST /api/embed`.
    public struct EmbedRequest: Codable, Sendable, Equatable {
        public var model: String
        public var input: [String]
        public var truncate: Bool?
        public var keepAlive: String?
        public var dimensions: Int?

        public init(model: String, input: [String], truncate: Bool? = nil, keepAlive: String? = nil, dimensions: Int? = nil) {
            self.model = model
            self.input = input
            self.truncate = truncate
            self.keepAlive = keepAlive
            self.dimensions = dimensions
        }
    }

    /// Reply of `POST /api/embed`.
    public struct EmbedResponse: Codable, Sendable, Equatable {
        public var model: String
        public var embeddings: [[Float]]
        public var promptEvalCount: Int?
    }

    /// One entry of `GET /api/tags`.
    public struct ModelSummary: Codable, Sendable, Equatable {
        public var name: String
        public var model: String?
        public var digest: String?
        public var size: Int64?
        public var family: String?
    }

    /// Reply of `POST /api/show`, reduced to what callers need.
    public struct ModelDetails: Sendable, Equatable {
        public var capabilities: [String]
        public var family: String?
        public var embeddingLength: Int?
        public var contextLength: Int?
    }
}
