import Foundation
import Ollama
import TroveKit
import TroveStore

/// `trove ask QUESTION`: a cited answer from your documents, streamed.
struct AskCommand: Command {
    static let name = "ask"
    static let abstract = "Answer a question from your documents with a local chat model, citing its sources."
    static let usage = "trove ask [options] QUESTION…"
    static let details = """
        Retrieves the passages that best match the question, gives the best that fit the chat model's context
        to it as numbered, quoted sources, streams the answer, then lists the sources it cited as
        [n] path:start-end. Citations are checked: a number that matches no source is flagged, never listed.
        When no passage covers the question, says so and shows the nearest passages instead of asking the model.

        Options:
          --chat-model NAME   chat model (default: $TROVE_CHAT_MODEL, else llama3.2)
          -n, --limit N       passages to retrieve before packing (default 8)
          --min-score S       a passage covers the question from this vector score on (default 0.25)
          --allow-general     ask the model even when no passage covers the question
          --temperature T     sampling temperature (model default otherwise)
          --seed N            seed for reproducible sampling
          --system FILE       use the system prompt in FILE instead of the built-in one
          --no-stream         print the answer when complete instead of as it is written
          --json              print {answer, sources, model, prompt_tokens, truncated, …} when done
        \(CommonOptions.help)

        Ctrl-C stops the answer (what was written is kept) and exits 130.

        Examples:
          trove ask "how do we rotate the stripe key?"
          trove ask --chat-model qwen3:4b --json "what did we decide about the march outage?"
        """

    var common: CommonOptions
    var options: AskOptions
    var stream: Bool
    var json: Bool
    var question: String
    var chatModelFlag: String?

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        chatModelFlag = try arguments.value("--chat-model")
        options = AskOptions(chatModel: "")
        try ChatOptionsParser.parse(&arguments, into: &options)
        stream = !arguments.flag("--no-stream")
        json = arguments.flag("--json")
        question = try arguments.positionals().joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !question.isEmpty else { throw UsageError("what is the question? give a QUESTION") }
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, environment: console.environment)
        var options = self.options
        options.temperature = settings.chatTemperature(flag: options.temperature)
        options.chatModel = settings.chatModel(flag: chatModelFlag)
        let asker = Asker(client: settings.client, options: options)
        // The chat model first: a missing one should cost nothing else.
        let model = try await asker.inspectModel()
        let access = try IndexAccess(settings: settings)
        let retrieval = try await asker.retrieve(query: question, retriever: access.retriever, embedder: access.embedder)
        guard retrieval.covered || options.allowGeneral else {
            AnswerPrinter(console: console, json: json).printUncovered(question: question, retrieval: retrieval, options: options)
            return ExitCode.failure
        }

        let printer = AnswerPrinter(console: console, json: json)
        let streamTokens = stream && !json
        let task = Task {
            try await asker.answer(question: question, hits: retrieval.hits, history: [], model: model) { token in
                if streamTokens { console.output.write(token) }
            }
        }
        Interrupts.onNext { task.cancel() }
        defer { Interrupts.clear() }
        let answer = try await task.value
        printer.print(answer, streamed: streamTokens)
        return answer.interrupted ? ExitCode.interrupted : ExitCode.success
    }
}

/// Options `ask` and `chat` share.
enum ChatOptionsParser {
    static func parse(_ arguments: inout Arguments, into options: inout AskOptions) throws {
        if let limit = try arguments.integer("-n", "--limit", minimum: 1) { options.limit = limit }
        if let score = try arguments.cosine("--min-score") { options.minScore = score }
        options.allowGeneral = arguments.flag("--allow-general")
        if let text = try arguments.value("--temperature") {
            guard let value = Double(text), value >= 0, value <= 2 else {
                throw UsageError("--temperature expects a number from 0 to 2, got '\(text)'")
            }
            options.temperature = value
        }
        if let seed = try arguments.integer("--seed", minimum: 0) { options.seed = seed }
        if let file = try arguments.value("--system") {
            do {
                options.systemPrompt = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw UsageError("cannot read the system prompt file \(file): \(error.localizedDescription)")
            }
        }
    }
}

/// Opens the index for retrieval with the embedder its vectors were made with.
struct IndexAccess {
    let retriever: Retriever
    let embedder: any Embedder

    init(settings: Settings) throws {
        let store = try IndexStore(path: settings.indexPath, createIfMissing: false)
        retriever = try Retriever(store: store)
        // The embedder the index records (ollama or builtin), never another.
        embedder = try settings.embedder(kindFlag: nil, modelFlag: nil, indexed: retriever.manifest)
    }
}
