import Ollama

/// Embeds through an Ollama server's `/api/embed`.
public struct OllamaEmbedder: Embedder {
    public let client: OllamaClient
    public let model: String
    public var provider: Provider { .ollama }
    /// How long Ollama keeps the model loaded after a request; long enough to span an indexing run.
    public var keepAlive = "10m"

    public init(client: OllamaClient, model: String) {
        self.client = client
        self.model = model
    }

    public func inspect() async throws -> EmbedderInfo {
        let details = try await client.show(model: model)
        guard details.capabilities.isEmpty || details.capabilities.contains("embedding") else {
            throw OllamaError.notCapable(model: model, endpoint: "/api/show")
        }
        let digest = try await client.tags().first { $0.name == model || $0.name == model + ":latest" }?.digest
        // model_info can lack the length on old servers; one probe embedding settles it.
        let dimension: Int
        if let length = details.embeddingLength {
            dimension = length
        } else {
            dimension = try await embed(["dimension probe"])[0].count
        }
        return EmbedderInfo(dimension: dimension, contextLength: details.contextLength, digest: digest)
    }

    public func embed(_ texts: [String]) async throws -> [[Float]] {
        guard !texts.isEmpty else { return [] }
        let request = OllamaClient.EmbedRequest(model: model, input: texts, truncate: true, keepAlive: keepAlive)
        return try await client.embed(request).embeddings
    }
}
