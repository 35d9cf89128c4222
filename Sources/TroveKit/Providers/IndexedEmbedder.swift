/// The embedder an index records.
public struct IndexedEmbedder: Sendable, Equatable {
    public var provider: Provider
    public var model: String

    /// An embedder from its parts.
    public init(provider: Provider, model: String) {
        self.provider = provider
        self.model = model
    }
}
