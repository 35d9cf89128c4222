/// A chat's turns, and how much of them goes back to the model.
public struct Conversation: Sendable {
    public var turns: [ChatTurn]

    public init(turns: [ChatTurn] = []) { self.turns = turns }

    /// The newest turns that fit `budget` tokens, oldest first, as chat messages. Older turns are dropped (they stay
    /// stored); an interrupted answer is sent marked as such so the model doesn't take it as complete.
    public func history(budget: Int) -> [PromptMessage] {
        var kept: [PromptMessage] = []
        var remaining = budget
        for turn in turns.reversed() {
            let content = turn.interrupted ? turn.content + " [interrupted]" : turn.content
            let cost = PromptBuilder.tokens(of: content)
            guard cost <= remaining else { break }
            remaining -= cost
            switch turn.role {
            case .user: kept.append(PromptMessage(role: .user, content: content))
            case .assistant: kept.append(PromptMessage(role: .assistant, content: content))
            }
        }
        // A history must not start with a dangling answer whose question was dropped.
        while let first = kept.last, first.role == .assistant { kept.removeLast() }
        return kept.reversed()
    }

    /// The query retrieval runs for a follow-up. Follow-ups lean on earlier turns ("and how long does that take?"),
    /// so the previous question is searched together with this one; a cheap, documented alternative to asking the
    /// model to rewrite the question, which would cost a second generation per turn.
    public func retrievalQuery(for question: String) -> String {
        guard let previous = turns.last(where: { $0.role == .user }) else { return question }
        return previous.content + " " + question
    }
}
