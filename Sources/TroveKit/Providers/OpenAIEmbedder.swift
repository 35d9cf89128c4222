import Foundation
import Ollama
import OpenAICompatible

/// Embeds through any OpenAI-compatible server's `/v1/embeddings` (llama.cpp, LM Studio, vLLM, LocalAI, OpenAI).
public struct OpenAIEmbedder: Embedder {
    public let client: OpenAIClient
    public let model: String
    public var provider: Provider { .openai }
    /// Asks for shorter vectors where the model supports it; nil takes the model's own length.
    public var dimensions: Int?

    public init(client: OpenAIClient, model: String, dimensions: Int? = nil) {
        self.client = client
        self.model = model
        self.dimensions = dimensions
    }

    /// Checks the model is listed, measures the dimension with one probe, and reads the context size from
    /// llama.cpp's `/props` where the server has one. The digest records the server's host (never the key): vectors
    /// of the same model id on another server are not assumed comparable.
    public func inspect() async throws -> EmbedderInfo {
        let served = try await client.models()
        guard served.contains(model) || served.isEmpty else {
            throw OpenAIError(
                kind: .notFound,
                message: "model '\(model)' is not served at \(client.displayURL) — it serves: "
                    + served.joined(separator: ", "))
        }
        let dimension = try await embed(["dimension probe"])[0].count
        return EmbedderInfo(
            dimension: dimension, contextLength: await client.contextSize(), digest: "host=\(client.host)")
    }

    public func embed(_ texts: [String]) async throws -> [[Float]] {
        guard !texts.isEmpty else { return [] }
        do {
            return try await client.embeddings(
                EmbeddingsRequest(model: model, input: texts, encodingFormat: .float, dimensions: dimensions))
        } catch let error as OpenAIError where error.kind == .server || error.kind == .rejected {
            // The indexer isolates an input the server refuses (llama.cpp answers 500 for one over its context) by
            // halving the batch, and names its file: it knows that path by these kinds.
            throw OllamaError(
                kind: error.kind == .server ? .serverError : .badRequest, message: error.message,
                endpoint: "/v1/embeddings", status: error.status, serverMessage: error.message)
        }
    }
}
