/// The models a front end may offer for chat: what one chat server lists.
public struct ChatModelListing: Sendable, Equatable {
    /// The server that writes answers.
    public var provider: Provider
    /// The models it lists, sorted.
    public var models: [String]

    /// Whether the server serves `name`: listed as given, or, on Ollama, with the `:latest` a bare name means.
    public func serves(_ name: String) -> Bool {
        models.contains(name) || (provider == .ollama && !name.contains(":") && models.contains(name + ":latest"))
    }
}

extension TroveConfiguration {
    /// The chat servers a front end may offer: Ollama, and the OpenAI-compatible chat server when one is named.
    public var chatProviders: [Provider] { chatServer == nil ? [.ollama] : [.ollama, .openai] }

    /// The models `provider`'s server lists (nil: the configured chat provider's): Ollama's pulled models, or an
    /// OpenAI-compatible server's `/v1/models`. Throws the server's error (a `TroveError`) when it cannot be asked.
    public func chatModels(of provider: Provider? = nil) async throws -> ChatModelListing {
        let provider = provider ?? chatProvider
        guard provider == .openai else {
            return ChatModelListing(provider: .ollama, models: try await ollama.tags().map(\.name).sorted())
        }
        guard let chatServer else {
            _ = try chatModel(named: "", provider: .openai)  // throws the error that says which flag names the server
            return ChatModelListing(provider: .openai, models: [])
        }
        return ChatModelListing(provider: .openai, models: try await chatServer.models().sorted())
    }
}
