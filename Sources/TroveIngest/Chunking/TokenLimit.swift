/// The embedding model's context, which no chunk may exceed once its heading line and the model's document prefix
/// are put before it: the size in tokens and how to count them.
package struct TokenLimit: Sendable {
    /// How tokens are counted.
    package enum Counting: String, Sendable {
        /// The model's own tokenizer (the built-in MiniLM's WordPiece): exact.
        case tokenizer
        /// `TokenEstimate`, for a model whose tokenizer Trove does not have (Ollama, OpenAI-compatible servers):
        /// about 2 per English word where real tokenizers give 1.3, a margin rather than a guarantee.
        case estimate
    }

    /// Tokens the model reads at most, its own markers included (512 for all-MiniLM).
    package var context: Int
    /// Tokens the model adds around every text (`[CLS]` and `[SEP]`: 2).
    package var markers: Int
    /// The text put before every chunk when it is embedded (a model's document prefix), counted against the context.
    package var prefix: String
    package var counting: Counting
    /// Tokens of a text, additive over pieces cut at whitespace.
    package let count: @Sendable (Substring) -> Int

    /// A limit from its parts.
    package init(
        context: Int, markers: Int = 0, prefix: String = "", counting: Counting,
        count: @escaping @Sendable (Substring) -> Int
    ) {
        self.context = context
        self.markers = markers
        self.prefix = prefix
        self.counting = counting
        self.count = count
    }

    /// A context of `context` tokens counted with `TokenEstimate`.
    package static func estimated(context: Int, prefix: String = "") -> TokenLimit {
        TokenLimit(context: context, prefix: prefix, counting: .estimate) { TokenEstimate.count($0) }
    }

    /// Tokens left for the text of a chunk under `headingPath` (embedded as `prefix`, the path joined by ` › `, a
    /// blank line, the text); at least 1.
    package func available(headingPath: [String]) -> Int {
        let heading = prefix + headingPath.joined(separator: " › ")
        return max(1, context - markers - count(heading[...]))
    }
}
