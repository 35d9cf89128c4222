import Foundation
import TroveKit
import TroveOutput
import TroveSystem

/// Prints an answer's ending: the cited sources, and the warnings a user must not miss.
struct AnswerPrinter {
    let console: Console
    let json: Bool

    func print(_ answer: Answer, streamed: Bool) {
        if json {
            console.print((try? JSONOutput.encode(AnswerOutput(answer))) ?? "{}")
            warn(answer)
            return
        }
        if !streamed { console.output.write(console.safe(answer.text)) }
        if answer.interrupted { console.output.write(" [interrupted]") }
        if answer.failure != nil { console.output.write(" [incomplete]") }
        console.print("")
        let cited = answer.citedSources
        console.print("")
        if cited.isEmpty {
            console.print("Sources: none cited")
        } else {
            console.print("Sources:")
            for source in cited {
                console.print("  " + console.safe(Self.describe(source, relative: true), keepingNewlines: false))
            }
        }
        // With nothing cited the user still gets what to check the answer against: the passages it was given.
        if cited.isEmpty, !answer.sources.isEmpty {
            console.print("Not cited (the passages the model was given):")
            for source in answer.uncitedSources {
                console.print("  " + console.safe(Self.describe(source, relative: true), keepingNewlines: false))
            }
        }
        warn(answer)
    }

    /// Everything that makes an answer less trustworthy goes to stderr, one line each.
    private func warn(_ answer: Answer) {
        for line in AnswerWarnings.lines(answer) { console.log(line) }
    }

    /// The passages of an extractive answer, cited and quoted, under a label that says no model wrote them.
    func print(_ answer: ExtractiveAnswer) {
        if json {
            console.print((try? JSONOutput.encode(ExtractiveOutput(answer))) ?? "{}")
            return
        }
        console.print("Extractive answer: the passages that best match, quoted from your documents (no chat model wrote this).")
        for passage in answer.passages {
            console.print("")
            console.print(console.safe(Self.describe(passage.source, relative: true), keepingNewlines: false))
            for line in passage.lines { console.print("    > " + console.safe(line, keepingNewlines: false)) }
        }
    }

    func printUncovered(question: String, retrieval: Retrieval, options: AskOptions) {
        let nearest = Array(retrieval.hits.prefix(3))
        if json {
            let output = UncoveredOutput(
                question: question, covered: false,
                nearest: nearest.map { SourceOutput(number: nil, hit: $0) })
            console.print((try? JSONOutput.encode(output)) ?? "{}")
            return
        }
        console.print(
            "Your documents don't seem to cover this: no passage scored \(String(format2: options.minScore)) or more.")
        if !nearest.isEmpty {
            console.print("Nearest passages:")
            for hit in nearest {
                let score = String(format2: hit.vectorScore ?? hit.score)
                console.print(
                    console.safe(
                        "  \(Self.displayPath(hit.path)):\(hit.startLine)-\(hit.endLine)  \(score)  \(hit.heading)",
                        keepingNewlines: false))
            }
        }
        console.log("hint: rephrase the question, or pass --allow-general to let the model answer from general knowledge")
    }

    /// `[n] path:start-end  heading`; `relative` shows the path as `search` does (for the terminal; a chat's
    /// stored history keeps it absolute, as it outlives the current folder).
    static func describe(_ source: NumberedSource, relative: Bool = false) -> String {
        ChatExchange.describe(source, path: relative ? displayPath(source.hit.path) : nil)
    }

    /// A path relative to the current folder when under it, as `search` prints it.
    static func displayPath(_ path: String) -> String {
        HitFormatter.displayPath(path, from: FileManager.default.currentDirectoryPath)
    }
}

/// One source in `--json` output.
struct SourceOutput: Encodable {
    var number: Int?
    var path: String
    var startLine: Int
    var endLine: Int
    var heading: String
    var score: Float
    /// Where the passage is in the original, for a PDF, DOCX, … (as in search's `--json`).
    var locator: JSON?

    init(number: Int?, hit: SearchHit) {
        self.number = number
        path = hit.path
        startLine = hit.startLine
        endLine = hit.endLine
        heading = hit.heading
        score = hit.score
        locator = hit.locator.map(LocatorOutput.json)
    }

    enum CodingKeys: String, CodingKey {
        case number, path, heading, score, locator
        case startLine = "start_line"
        case endLine = "end_line"
    }
}

/// The `--json` shape of an answer.
struct AnswerOutput: Encodable {
    var mode = "generated"
    var answer: String
    var sources: [SourceOutput]
    var unknownCitations: [Int]
    var model: String
    /// The passages given but not cited (all of them when none was cited).
    var notCited: [SourceOutput]
    var provider: String
    var promptTokens: Int?
    var cachedTokens: Int?
    var truncated: Bool
    /// `checked`, or why truncation could not be detected.
    var truncationCheck: String
    var interrupted: Bool
    var doneReason: String?
    var error: String?

    init(_ answer: Answer) {
        self.answer = answer.text
        sources = answer.citedSources.map { SourceOutput(number: $0.number, hit: $0.hit) }
        notCited = answer.uncitedSources.map { SourceOutput(number: $0.number, hit: $0.hit) }
        unknownCitations = answer.citations.unknown
        model = answer.model
        provider = answer.provider.rawValue
        promptTokens = answer.promptTokens
        cachedTokens = answer.cachedTokens
        truncated = answer.truncated
        if case .unknown(let reason) = answer.truncation {
            truncationCheck = "not possible: " + reason
        } else {
            truncationCheck = "checked"
        }
        interrupted = answer.interrupted
        doneReason = answer.doneReason
        error = answer.failure?.message
    }

    enum CodingKeys: String, CodingKey {
        case mode, answer, sources, model, provider, truncated, interrupted, error
        case notCited = "not_cited"
        case unknownCitations = "unknown_citations"
        case promptTokens = "prompt_tokens"
        case cachedTokens = "cached_tokens"
        case truncationCheck = "truncation_check"
        case doneReason = "done_reason"
    }
}

/// The `--json` shape of an extractive answer.
struct ExtractiveOutput: Encodable {
    struct Passage: Encodable {
        var source: SourceOutput
        var lines: [String]

        func encode(to encoder: any Encoder) throws {
            try source.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(lines, forKey: .lines)
        }

        enum CodingKeys: String, CodingKey { case lines }
    }

    var mode = "extractive"
    var reason: String
    var passages: [Passage]

    init(_ answer: ExtractiveAnswer) {
        reason = answer.reason
        passages = answer.passages.map { Passage(source: SourceOutput(number: $0.source.number, hit: $0.source.hit), lines: $0.lines) }
    }
}

/// The `--json` shape when the documents do not cover the question.
struct UncoveredOutput: Encodable {
    var question: String
    var covered: Bool
    var nearest: [SourceOutput]
}
