import TroveIngest

/// A retrieved passage as the model sees it: numbered, so the answer can cite it as `[n]`.
public struct NumberedSource: Sendable, Equatable {
    /// 1-based; what `[n]` in the answer refers to.
    public var number: Int
    public var hit: SearchHit

    public init(number: Int, hit: SearchHit) {
        self.number = number
        self.hit = hit
    }
}

/// Fits retrieved passages into a chat model's context window, best first, leaving room for everything else.
package struct ContextPacker: Sendable {
    /// The model's context length in tokens (`num_ctx` sent with the request).
    package var contextLength: Int
    /// Tokens kept free for the answer.
    package var answerReserve: Int
    /// Tokens already spent on the system prompt, history and question.
    package var fixedTokens: Int

    package init(contextLength: Int, answerReserve: Int, fixedTokens: Int) {
        self.contextLength = contextLength
        self.answerReserve = answerReserve
        self.fixedTokens = fixedTokens
    }

    /// Tokens left for sources.
    package var sourceBudget: Int { max(0, contextLength - answerReserve - fixedTokens) }

    /// The hits that fit, in rank order and numbered 1…; a hit that doesn't fit is skipped, and a smaller one after it
    /// may still fit. `omitted` counts the skipped ones so the caller can say so.
    package func pack(_ hits: [SearchHit]) -> (sources: [NumberedSource], omitted: Int) {
        var remaining = sourceBudget
        var sources: [NumberedSource] = []
        var omitted = 0
        for hit in hits {
            let cost = PromptBuilder.tokens(ofSource: hit, number: sources.count + 1)
            guard cost <= remaining else {
                omitted += 1
                continue
            }
            remaining -= cost
            sources.append(NumberedSource(number: sources.count + 1, hit: hit))
        }
        return (sources, omitted)
    }
}
