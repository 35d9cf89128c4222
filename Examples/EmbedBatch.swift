import Foundation
import Ollama

/// Embeds a batch of texts in one request and prints each vector's length and first values.
func embedBatch(_ client: OllamaClient) async throws {
    let texts = ["The cat sat on the mat.", "Vectors are lists of numbers.", "Swift runs on Linux."]
    let reply = try await client.embed(.init(model: "nomic-embed-text", input: texts, keepAlive: "5m"))
    for (text, vector) in zip(texts, reply.embeddings) {
        print("\(vector.count) floats, starting \(vector.prefix(3)): \(text)")
    }
}
