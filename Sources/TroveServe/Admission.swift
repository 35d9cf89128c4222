import TroveKit

extension SearchServer {
    /// The settings that decide which model server embeds a search's query. A server refuses a client whose settings
    /// differ in what its index's embedder uses, so the client never gets vectors of another model server; a
    /// difference the index does not use (`OLLAMA_HOST` beside an index of the built-in model) keeps the client on
    /// the server instead of sending it the cold way.
    package struct Admission: Codable, Sendable, Equatable, CustomStringConvertible {
        /// Ollama's base URL, without a trailing `/`.
        package var ollama: String?
        /// The built-in model's folder.
        package var builtinModels: String?
        /// The OpenAI-compatible server's base URL; empty for none.
        package var openAI: String?

        /// Settings as the client has them.
        package init(ollama: String?, builtinModels: String?, openAI: String?) {
            self.ollama = ollama
            self.builtinModels = builtinModels
            self.openAI = openAI
        }

        /// Only the settings an index embedded by `provider` uses (all of them for an index without one yet): a
        /// server's view.
        package func used(by provider: Provider?) -> Admission {
            switch provider {
            case .builtin: Admission(ollama: nil, builtinModels: builtinModels, openAI: nil)
            case .ollama: Admission(ollama: ollama, builtinModels: nil, openAI: nil)
            case .openai: Admission(ollama: nil, builtinModels: nil, openAI: openAI ?? "")
            case nil: self
            }
        }

        /// A client's settings, as far as this server (`used(by:)`) holds any: equal means the client may be answered.
        func seen(from client: Admission) -> Admission {
            Admission(
                ollama: ollama == nil ? nil : client.ollama ?? "",
                builtinModels: builtinModels == nil ? nil : client.builtinModels ?? "",
                openAI: openAI == nil ? nil : client.openAI ?? "")
        }

        /// The settings in words, for a refusal.
        package var description: String {
            let parts = [
                ollama.map { "ollama at \($0)" }, builtinModels.map { "built-in models in \($0)" },
                openAI.map { $0.isEmpty ? "no OpenAI-compatible server" : "the OpenAI-compatible server at \($0)" },
            ]
            return parts.compactMap { $0 }.joined(separator: ", ")
        }
    }
}
