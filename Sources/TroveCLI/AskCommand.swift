import Foundation
import TroveKit

/// `trove ask QUESTION`: a cited answer from your documents, streamed.
struct AskCommand: Command {
    static let name = "ask"
    static let abstract = "Answer a question from your documents with a local chat model, citing its sources."
    static let usage = "trove ask [options] QUESTION…"
    static let discussion = """
        Retrieves the passages that best match the question, gives the best that fit the chat model's context
        to it as numbered, quoted sources, streams the answer, then lists the sources it cited as
        [n] path:start-end. Citations are checked: a number that matches no source is flagged, never listed.
        When no passage covers the question, says so and shows the nearest passages instead of asking the model.

        Without a chat model — Ollama not running, or the default model not pulled — it answers in extractive
        mode instead: the best passages themselves, cited and quoted, labelled as such (a note on stderr says
        why and how to get a written answer). A chat model you named that cannot be used is an error.
        """
    static let optionGroups = [
        OptionGroup(
            "Options",
            [chatModel] + ChatOptionsParser.options + [noStream, extractive, json] + CommonOptions.options)
    ]
    static let epilogue = """
        Ctrl-C stops the answer (what was written is kept) and exits 130.

        Examples:
          trove ask "how do we rotate the stripe key?"
          trove ask --chat-model qwen3:4b --json "what did we decide about the march outage?"
          trove ask --extractive "where is the vpn config?"
        """

    static let chatModel = Option(
        "--chat-model", value: "NAME", help: "chat model", default: "$TROVE_CHAT_MODEL, else llama3.2")
    static let noStream = Option("--no-stream", help: "print the answer when complete instead of as it is written")
    static let extractive = Option(
        "--extractive", help: "answer with the best passages themselves; no chat model is asked")
    static let json = Option("--json", help: "print {answer, sources, model, prompt_tokens, truncated, …} when done")

    var common: CommonOptions
    var options: AskOptions
    var stream: Bool
    var json: Bool
    var question: String
    var chatModelFlag: String?
    var extractive: Bool
    var chatServer: ChatServerFlags

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        chatModelFlag = arguments.value(Self.chatModel)
        options = AskOptions(chatModel: "")
        chatServer = ChatOptionsParser.parseServer(&arguments)
        try ChatOptionsParser.parse(&arguments, into: &options)
        stream = !arguments.flag(Self.noStream)
        json = arguments.flag(Self.json)
        extractive = arguments.flag(Self.extractive)
        question = arguments.operands.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !question.isEmpty else { throw UsageError("what is the question? give a QUESTION") }
    }

    func run(_ console: Console) async throws -> Int32 {
        var settings = try Settings(common, console: console)
        settings.chatFlags = chatServer
        try settings.checkChatServer()
        var options = self.options
        options.temperature = settings.chatTemperature(flag: options.temperature)
        options.chatModel = settings.chatModel(flag: chatModelFlag)
        var request = AskRequest(question: question, options: options)
        // Without a usable chat model the answer is extractive; a model the user named must work.
        request.chatModelChosen = settings.chatModelChosen(flag: chatModelFlag)
        request.extractive = extractive
        let index = try settings.openIndex()
        let streamTokens = stream && !json
        let task = Task {
            try await index.ask(request) { token in
                if streamTokens { console.output.write(console.safe(token)) }
            }
        }
        Interrupts.onNext { task.cancel() }
        defer { Interrupts.clear() }
        let printer = AnswerPrinter(console: console, json: json)
        let outcome: AskOutcome
        do {
            outcome = try await task.value
        } catch is CancellationError {
            // Ctrl-C before the model started writing (during retrieval).
            console.log("interrupted: no answer was written")
            return ExitCode.interrupted
        }
        switch outcome {
        case .uncovered(let retrieval):
            printer.printUncovered(question: question, retrieval: retrieval, options: options)
            return ExitCode.failure
        case .extractive(let answer):
            if !extractive { console.log("note: no chat model (\(answer.reason)); answering with the passages themselves") }
            printer.print(answer)
            return ExitCode.success
        case .answered(let answer):
            printer.print(answer, streamed: streamTokens)
            if let failure = answer.failure {
                return failure.kind == .unavailable ? ExitCode.unavailable : ExitCode.failure
            }
            return answer.interrupted ? ExitCode.interrupted : ExitCode.success
        }
    }
}

/// Options `ask` and `chat` share.
enum ChatOptionsParser {
    static let limit = Option(
        "--limit", short: "-n", value: "N", .integer(min: 1), help: "passages to retrieve before packing", default: "8")
    static let minScore = Option(
        "--min-score", value: "S", .number(-1...1), help: "a passage covers the question from this vector score on",
        default: "0.25")
    static let allowGeneral = Option(
        "--allow-general", help: "ask the model even when no passage covers the question")
    static let temperature = Option(
        "--temperature", value: "T", .number(0...2), help: "sampling temperature",
        default: "the config file's chat_temperature, else the model's")
    static let seed = Option("--seed", value: "N", .integer(min: 0), help: "seed for reproducible sampling")
    static let system = Option(
        "--system", value: "FILE", .file, help: "use the instructions in FILE instead of the built-in ones (the rule that sources are data is kept)")
    static let numCtx = Option(
        "--num-ctx", value: "N", .integer(min: 256), help: "the chat model's context window in tokens (Ollama: sent as num_ctx)",
        default: "the server's (llama.cpp /props) or the model's, up to 8192; else 4096")
    static let maxTokens = Option(
        "--max-tokens", value: "N", .integer(min: 1), help: "stop the answer after N tokens (reported as cut at the length limit)",
        default: "the room left in the window, at most 1024")
    static let options = [limit, minScore, allowGeneral, temperature, seed, system, numCtx, maxTokens] + server

    static let chatProvider = Option(
        "--chat-provider", value: "NAME", 
        .choice(Provider.chatting.map { Option.Choice($0.rawValue, $0.chatHelp) }), help: "who writes answers",
        default: "$TROVE_CHAT_PROVIDER, else chat_provider in the config file, else ollama")
    static let chatBaseURL = Option(
        "--chat-base-url", value: "URL", help: "OpenAI-compatible server that chats, when not --base-url's",
        default: "$TROVE_CHAT_BASE_URL, else chat_base_url in the config file, else --base-url")
    /// The options that pick the chat server (also for `mcp` and `doctor`).
    static let server = [chatProvider, chatBaseURL]

    static func parseServer(_ arguments: inout Arguments) -> ChatServerFlags {
        ChatServerFlags(provider: arguments.value(chatProvider), baseURL: arguments.value(chatBaseURL))
    }

    static func parse(_ arguments: inout Arguments, into options: inout AskOptions) throws {
        if let limit = arguments.integer(Self.limit) { options.limit = limit }
        if let score = arguments.number(Self.minScore) { options.minScore = Float(score) }
        options.allowGeneral = arguments.flag(Self.allowGeneral)
        options.temperature = arguments.number(Self.temperature)
        if let seed = arguments.integer(Self.seed) { options.seed = seed }
        options.contextWindow = arguments.integer(Self.numCtx)
        options.maxAnswerTokens = arguments.integer(Self.maxTokens)
        if let file = arguments.value(Self.system) {
            do {
                options.systemPrompt = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw UsageError("cannot read the system prompt file \(file): \(error.localizedDescription)")
            }
        }
    }
}
