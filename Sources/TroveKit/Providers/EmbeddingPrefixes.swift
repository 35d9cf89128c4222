/// Task prefixes that a model family was trained with; embedding without them costs recall.
public struct EmbeddingPrefixes: Sendable, Equatable {
    public var query: String
    public var document: String

    public init(query: String, document: String) {
        self.query = query
        self.document = document
    }

    /// The documented prefixes of the model's family, or none.
    public static func forModel(_ model: String) -> EmbeddingPrefixes {
        let base = baseName(model)
        if base.hasPrefix("nomic-embed-text") {
            return EmbeddingPrefixes(query: "search_query: ", document: "search_document: ")
        }
        if base.hasPrefix("mxbai-embed-large") || base.hasPrefix("snowflake-arctic-embed") || base.hasPrefix("bge-") {
            return EmbeddingPrefixes(query: "Represent this sentence for searching relevant passages: ", document: "")
        }
        if base.contains("e5") {
            return EmbeddingPrefixes(query: "query: ", document: "passage: ")
        }
        return EmbeddingPrefixes(query: "", document: "")
    }

    /// `library/nomic-embed-text:latest` → `nomic-embed-text`.
    static func baseName(_ model: String) -> String {
        let withoutTag = model.split(separator: ":", maxSplits: 1).first.map(String.init) ?? model
        return (withoutTag.split(separator: "/").last.map(String.init) ?? withoutTag).lowercased()
    }
}
