import TroveKit

/// How a question and its answer are stored in a chat session: `trove chat` and `trove web` store them the same way,
/// so either can resume the other's sessions.
package enum ChatExchange {
    /// The two turns of one exchange: the question, then the answer with its cited sources (`[n] path:lines heading`,
    /// the path absolute: the history outlives the current folder), marked interrupted when it is partial.
    package static func turns(question: String, answer: Answer) -> [ChatTurn] {
        let sources = answer.citedSources.map { describe($0) }
        return [
            ChatTurn(role: .user, content: question),
            ChatTurn(
                role: .assistant, content: answer.text, sources: (try? JSONOutput.encode(sources)) ?? "[]",
                interrupted: answer.interrupted || answer.failure != nil),
        ]
    }

    /// `[n] path:start-end  heading` (`[n] path p.4 (lines 120–138)  heading` for a PDF, DOCX, …), with the path as
    /// given (absolute unless the caller shortens it).
    package static func describe(_ source: NumberedSource, path: String? = nil) -> String {
        let hit = source.hit
        let heading = hit.heading.isEmpty ? "" : "  \(hit.heading)"
        guard let locator = hit.locator else {
            return "[\(source.number)] \(path ?? hit.path):\(hit.startLine)-\(hit.endLine)\(heading)"
        }
        // A passage of a PDF, DOCX, …: the page first, as a reader cites it, then the lines `trove get` shows.
        let lines = "(lines \(hit.startLine)–\(hit.endLine))"
        return "[\(source.number)] \(path ?? hit.path) \(locator.label) \(lines)\(heading)"
    }
}
