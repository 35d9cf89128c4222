extension WarmSearch {
    /// The settings that decide which model server embeds a search's query. A server refuses a client whose settings
    /// differ in what its index's embedder uses, so the client never gets vectors of another model server; a
    /// difference the index does not use (`OLLAMA_HOST` beside an index of the built-in model) keeps the client on
    /// the server instead of sending it the cold way.
    public struct Embedding: Codable, Sendable, Equatable, CustomStringConvertible {
        /// Ollama's base URL, without a trailing `/`.
        public var ollama: String?
        /// The built-in model's folder.
        public var builtinModels: String?
        /// The OpenAI-compatible server's base URL; empty for none.
        public var openAI: String?

        public init(ollama: String?, builtinModels: String?, openAI: String?) {
            self.ollama = ollama
            self.builtinModels = builtinModels
            self.openAI = openAI
        }

        /// Only the settings an index embedded by `kind` uses (all of them for an unknown kind): a server's view.
        public func used(by kind: String?) -> Embedding {
            switch kind {
            case "builtin": Embedding(ollama: nil, builtinModels: builtinModels, openAI: nil)
            case "ollama": Embedding(ollama: ollama, builtinModels: nil, openAI: nil)
            case "openai": Embedding(ollama: nil, builtinModels: nil, openAI: openAI ?? "")
            default: self
            }
        }

        /// A client's settings, as far as this server (`used(by:)`) holds any: equal means the client may be answered.
        func seen(from client: Embedding) -> Embedding {
            Embedding(
                ollama: ollama == nil ? nil : client.ollama ?? "",
                builtinModels: builtinModels == nil ? nil : client.builtinModels ?? "",
                openAI: openAI == nil ? nil : client.openAI ?? "")
        }

        public var description: String {
            let parts = [
                ollama.map { "ollama at \($0)" }, builtinModels.map { "built-in models in \($0)" },
                openAI.map { $0.isEmpty ? "no OpenAI-compatible server" : "the OpenAI-compatible server at \($0)" },
            ]
            return parts.compactMap { $0 }.joined(separator: ", ")
        }
    }
}
