import Foundation
import TroveKit
import TroveOutput

/// `trove chat`: a conversation with your documents, resumable by name.
struct ChatCommand: Command {
    static let name = "chat"
    static let abstract = "Talk with your documents: follow-up questions, cited answers, history kept in the index."
    static let usage = "trove chat [options]"
    static let discussion = """
        Reads questions line by line (from the terminal or a pipe) and answers each like `trove ask`.
        Follow-ups are searched together with the previous question. The history sent back to the model is kept
        within a quarter of its context window (oldest turns dropped first); all of it stays stored in the
        index under the session's name.

        Commands inside the chat:
          /sources        the sources of the last answer
          /reset          forget this session's history
          /model NAME     switch the chat model
          /k N            retrieve N passages per question
          /save [NAME]    save the conversation (under NAME: a copy)
          /exit           leave (also Ctrl-D)
        """
    static let optionGroups = [
        OptionGroup("Options", [session, chatModel] + ChatOptionsParser.options + CommonOptions.options)
    ]
    static let epilogue = """
        Ctrl-C stops the answer being written and returns to the prompt; at the prompt it leaves.
        """

    static let session = Option(
        "--session", value: "NAME", help: "resume or start the named conversation", default: "default")
    static let chatModel = Option(
        "--chat-model", value: "NAME", help: "chat model", default: "the session's, else $TROVE_CHAT_MODEL, else llama3.2")

    var common: CommonOptions
    var session: String
    var chatModelFlag: String?
    var options: AskOptions
    var chatServer: ChatServerFlags

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        session = arguments.value(Self.session) ?? "default"
        chatModelFlag = arguments.value(Self.chatModel)
        options = AskOptions(chatModel: "")
        chatServer = ChatOptionsParser.parseServer(&arguments)
        try ChatOptionsParser.parse(&arguments, into: &options)
        if let first = arguments.operands.first {
            throw UsageError("unexpected argument '\(first)' — type questions after starting")
        }
    }

    func run(_ console: Console) async throws -> Int32 {
        var settings = try Settings(common, console: console)
        settings.chatFlags = chatServer
        try settings.checkChatServer()
        let index = try settings.openIndex()
        let record = try await index.chatSession(named: session, chatModel: settings.chatModel(flag: chatModelFlag))
        var options = self.options
        options.temperature = settings.chatTemperature(flag: options.temperature)
        options.chatModel = chatModelFlag.map { settings.chatModel(flag: $0) } ?? record.chatModel
        var state = ChatState(
            options: options, model: try await index.inspectChatModel(options),
            conversation: Conversation(turns: record.turns))
        if options.chatModel != record.chatModel { try await index.setChatModel(options.chatModel, of: record) }

        let interactive = FileStream(descriptor: STDIN_FILENO).isTerminal
        if interactive {
            console.log(
                "trove chat — session '\(session)' (\(state.conversation.turns.count) stored turns), model \(state.model.name); /exit to leave")
        }

        while true {
            if interactive { console.error.write("› ") }
            guard let line = readLine() else { break }
            let input = line.trimmingCharacters(in: .whitespaces)
            if input.isEmpty { continue }
            if input.hasPrefix("/") {
                let outcome = try await handleCommand(input, state: &state, index: index, session: record, console: console)
                if outcome == .exit { break }
                continue
            }
            var request = AskRequest(question: input, options: state.options)
            request.conversation = state.conversation
            request.model = state.model
            let task = Task {
                try await index.ask(request) { token in console.output.write(console.safe(token)) }
            }
            // Ctrl-C stops this answer and returns to the prompt; at the prompt it leaves.
            Interrupts.onNext { task.cancel() }
            let answer: Answer
            do {
                let outcome = try await task.value
                Interrupts.clear()
                guard case .answered(let answered) = outcome else {
                    if case .uncovered(let retrieval) = outcome {
                        AnswerPrinter(console: console, json: false).printUncovered(
                            question: input, retrieval: retrieval, options: state.options)
                    }
                    continue
                }
                answer = answered
            } catch {
                Interrupts.clear()
                console.print("")
                // Ctrl-C before the model started writing (during retrieval) just returns to the prompt.
                console.log(error is CancellationError ? "interrupted" : "Error: \(String(describing: error))")
                continue
            }
            AnswerPrinter(console: console, json: false).print(answer, streamed: true)
            state.lastAnswer = answer
            let turns = ChatExchange.turns(question: input, answer: answer)
            try await index.appendChatTurns(turns, to: record)
            state.conversation.turns += turns
        }
        return ExitCode.success
    }

    enum CommandOutcome { case stay, exit }

    private func handleCommand(
        _ input: String, state: inout ChatState, index: TroveIndex, session record: ChatSession, console: Console
    ) async throws -> CommandOutcome {
        let words = input.split(separator: " ").map(String.init)
        switch words[0] {
        case "/exit", "/quit":
            return .exit
        case "/sources":
            guard let answer = state.lastAnswer else {
                console.print("no answer yet")
                return .stay
            }
            let cited = Set(answer.citations.cited)
            for source in answer.sources {
                console.print((cited.contains(source.number) ? "* " : "  ") + AnswerPrinter.describe(source, relative: true))
            }
            console.print("(* cited in the answer)")
        case "/reset":
            try await index.replaceChatTurns(of: record, with: [])
            state.conversation = Conversation()
            state.lastAnswer = nil
            console.print("history cleared")
        case "/model":
            guard words.count == 2 else {
                console.print("usage: /model NAME (now \(state.model.name))")
                return .stay
            }
            var options = state.options
            options.chatModel = words[1]
            do {
                state.model = try await index.inspectChatModel(options)
                state.options = options
                try await index.setChatModel(words[1], of: record)
                console.print("now chatting with \(words[1])")
            } catch {
                console.log("Error: \(String(describing: error))")
            }
        case "/k":
            guard words.count == 2, let k = Int(words[1]), k >= 1 else {
                console.print("usage: /k N, N ≥ 1 (now \(state.options.limit))")
                return .stay
            }
            state.options.limit = k
            console.print("retrieving \(k) passages per question")
        case "/save":
            if words.count == 2 {
                let copy = try await index.chatSession(named: words[1], chatModel: state.model.name)
                try await index.replaceChatTurns(of: copy, with: state.conversation.turns)
                console.print("saved as session '\(words[1])' (resume with: trove chat --session \(words[1]))")
            } else {
                console.print("saved: every turn is stored as you go (resume with: trove chat --session \(session))")
            }
        case "/help":
            console.print("/sources  /reset  /model NAME  /k N  /save [NAME]  /exit")
        default:
            console.print("unknown command \(words[0]) — /help lists them")
        }
        return .stay
    }
}

/// What a chat carries from one question to the next.
struct ChatState {
    var options: AskOptions
    var model: ChatModelInfo
    var conversation: Conversation
    var lastAnswer: Answer?
}
