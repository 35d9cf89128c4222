/// The models a front end may offer for chat: what the configured chat server lists.
public struct ChatModelListing: Sendable, Equatable {
    /// The server that writes answers.
    public var provider: Provider
    /// The models it lists, sorted.
    public var models: [String]
}

extension TroveConfiguration {
    /// The models the chat provider's server lists: Ollama's pulled models, or an OpenAI-compatible server's
    /// `/v1/models`. Throws the server's error (a `TroveError`) when it cannot be asked.
    public func chatModels() async throws -> ChatModelListing {
        guard chatProvider == .openai else {
            return ChatModelListing(provider: .ollama, models: try await ollama.tags().map(\.name).sorted())
        }
        guard let chatServer else {
            _ = try chatModel(named: "")  // throws the error that says which flag names the server
            return ChatModelListing(provider: .openai, models: [])
        }
        return ChatModelListing(provider: .openai, models: try await chatServer.models().sorted())
    }
}
