import TroveKit

/// The lines that make an answer less trustworthy, each a sentence a user must not miss: `trove ask` and `trove chat`
/// print them on stderr, `trove web` shows them under the answer, so both say the same.
package enum AnswerWarnings {
    /// The warnings for `answer`, in the order they are shown; empty for a clean answer.
    package static func lines(_ answer: Answer) -> [String] {
        var lines: [String] = []
        if !answer.citations.unknown.isEmpty {
            let unknown = answer.citations.unknown
            let numbers = unknown.map { "[\($0)]" }.joined(separator: ", ")
            lines.append(
                unknown.count == 1
                    ? "warning: the answer cites \(numbers), which matches no source it was given — check that claim"
                    : "warning: the answer cites \(numbers), which match no source it was given — check those claims")
        }
        if answer.truncated, let tokens = answer.promptTokens {
            let server = answer.provider == .ollama ? "Ollama" : "the server"
            lines.append(
                "warning: \(server) dropped part of the prompt (it read \(tokens) tokens of more sent) — use fewer "
                    + "passages (-n) or a model with a longer context")
        }
        if let failure = answer.failure {
            lines.append("Error: the answer broke off: \(failure.message)")
        }
        if answer.doneReason == "length" {
            lines.append("warning: the answer stopped at the length limit")
        }
        if answer.interrupted {
            lines.append("interrupted: the answer above is partial")
        }
        return lines
    }
}
