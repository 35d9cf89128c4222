/// An answer made of the documents' own words, for when no chat model can write one: the best passages that cover
/// the question, each cited as `[n]` and quoted by its lines that best match.
public struct ExtractiveAnswer: Sendable {
    /// One quoted passage.
    public struct Passage: Sendable {
        public var source: NumberedSource
        /// The passage's lines that share the most words with the question, in passage order.
        public var lines: [String]
    }

    public var passages: [Passage]
    /// Why no model wrote the answer, as one sentence a user can act on.
    public var reason: String

    /// The first `limit` passages of `retrieval` (in its ranking order) that cover the question.
    public init(
        question: String, retrieval: Retrieval, minScore: Float, reason: String, limit: Int = 3, linesPerPassage: Int = 5
    ) {
        let covering = retrieval.hits.filter { ($0.vectorScore ?? -1) >= minScore }.prefix(limit)
        passages = covering.enumerated().map { index, hit in
            Passage(
                source: NumberedSource(number: index + 1, hit: hit),
                lines: Snippet.lines(of: hit.text, query: question, count: linesPerPassage))
        }
        self.reason = reason
    }
}
