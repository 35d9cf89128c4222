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

        Without a chat model — Ollama not running, or the default model not pulled — it answers in extractive
        mode instead: the best passages themselves, cited and quoted, labelled as such (a note on stderr says
        why and how to get a written answer). A chat model you named that cannot be used is an error.

        Options:
          --chat-model NAME   chat model (default: $TROVE_CHAT_MODEL, else llama3.2)
          -n, --limit N       passages to retrieve before packing (default 8)
          --min-score S       a passage covers the question from this vector score on (default 0.25)
          --allow-general     ask the model even when no passage covers the question
          --temperature T     sampling temperature (model default otherwise)
          --seed N            seed for reproducible sampling
          --system FILE       use the system prompt in FILE instead of the built-in one
          --no-stream         print the answer when complete instead of as it is written
          --extractive        answer with the best passages themselves; no chat model is asked
          --json              print {answer, sources, model, prompt_tokens, truncated, …} when done
        \(CommonOptions.help)

        Ctrl-C stops the answer (what was written is kept) and exits 130.

        Examples:
          trove ask "how do we rotate the stripe key?"
          trove ask --chat-model qwen3:4b --json "what did we decide about the march outage?"
          trove ask --extractive "where is the vpn config?"
        """

    var common: CommonOptions
    var options: AskOptions
    var stream: Bool
    var json: Bool
    var question: String
    var chatModelFlag: String?
    var extractive: Bool

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        chatModelFlag = try arguments.value("--chat-model")
        options = AskOptions(chatModel: "")
        try ChatOptionsParser.parse(&arguments, into: &options)
        stream = !arguments.flag("--no-stream")
        json = arguments.flag("--json")
        extractive = arguments.flag("--extractive")
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
        let model = try await chatModel(asker, chosen: settings.chatModelChosen(flag: chatModelFlag))
        let access = try IndexAccess(settings: settings)
        let retrieval = try await asker.retrieve(query: question, retriever: access.retriever, embedder: access.embedder)
        let printer = AnswerPrinter(console: console, json: json)
        guard retrieval.covered || (options.allowGeneral && model.info != nil) else {
            printer.printUncovered(question: question, retrieval: retrieval, options: options)
            return ExitCode.failure
        }
        guard let model = model.info else {
            if !extractive { console.log("note: no chat model (\(model.reason)); answering with the passages themselves") }
            let answer = ExtractiveAnswer(
                question: question, retrieval: retrieval, minScore: options.minScore, reason: model.reason)
            printer.print(answer)
            return ExitCode.success
        }

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

extension AskCommand {
    /// The chat model to ask, or why there is none and the answer is extractive.
    struct ModelChoice {
        var info: ChatModelInfo?
        var reason: String
    }

    /// Inspects the chat model. `--extractive`, an unreachable Ollama, or the default model missing or unable
    /// to chat mean an extractive answer; a model the user named that cannot be used is their error to fix.
    func chatModel(_ asker: Asker, chosen: Bool) async throws -> ModelChoice {
        if extractive { return ModelChoice(info: nil, reason: "--extractive asks no chat model") }
        do {
            return ModelChoice(info: try await asker.inspectModel(), reason: "")
        } catch let error as OllamaError where error.kind == .unreachable || (!chosen && error.isModelUnusable) {
            return ModelChoice(info: nil, reason: error.message)
        }
    }
}

extension OllamaError {
    /// The model is not pulled or cannot chat.
    var isModelUnusable: Bool { kind == .modelMissing || kind == .notCapable }
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
