extension FakeOllamaServer {
    /// A model the server knows.
    public struct Model: Sendable, Equatable {
        /// The name clients use; a name without a tag also answers to `name:latest`.
        public var name: String
        /// Length of its vectors (`<arch>.embedding_length`).
        public var dimension: Int
        /// `<arch>.context_length`, in tokens (the fake counts words).
        public var contextLength: Int
        /// `["embedding"]` or `["completion"]`.
        public var capabilities: [String]
        /// A sha256-looking hex string derived from the name.
        public var digest: String
        /// `details.family` and `general.architecture`, the prefix of the `model_info` keys.
        public var family: String
        /// Which vector space it embeds into: models of one space make the same vectors (as the same weights under
        /// two names would); another space mixes every word hash with this seed. 0: the space of `embedding(for:)`.
        public var space: UInt64 = 0

        /// A model with every field given.
        public init(
            name: String, dimension: Int, contextLength: Int, capabilities: [String], digest: String, family: String
        ) {
            self.name = name
            self.dimension = dimension
            self.contextLength = contextLength
            self.capabilities = capabilities
            self.digest = digest
            self.family = family
        }

        /// An embedding model such as `nomic-embed-text`.
        public static func embedding(_ name: String, dimension: Int = 64, contextLength: Int = 2048) -> Model {
            Model(
                name: name, dimension: dimension, contextLength: contextLength, capabilities: ["embedding"],
                digest: FakeOllamaServer.digest(of: name), family: "nomic-bert")
        }

        /// A chat model that cannot embed, such as `llama3.2`.
        public static func chat(_ name: String, dimension: Int = 3072, contextLength: Int = 131_072) -> Model {
            Model(
                name: name, dimension: dimension, contextLength: contextLength, capabilities: ["completion"],
                digest: FakeOllamaServer.digest(of: name), family: "llama")
        }
    }
}
