import Foundation
import TroveKit

/// `trove doctor`: checks everything indexing and search depend on.
struct DoctorCommand: Command {
    static let name = "doctor"
    static let abstract = "Check the model servers (Ollama, OpenAI-compatible), the embedding and chat models, the built-in model, SQLite FTS5, BLAS, the index and the document extractors (PDF tools, the worker's confinement); print a fix for each problem."
    static let usage = "trove doctor [options]"
    static let discussion = "Prints one line per check and exits 1 when any check fails."
    static let optionGroups = [
        OptionGroup("Options", [model, chatModel] + ChatOptionsParser.server + CommonOptions.options)
    ]

    static let model = Option(
        "--model", value: "NAME", help: "embedding model to check",
        default: "the index's, else $TROVE_EMBED_MODEL, else nomic-embed-text")
    static let chatModel = Option(
        "--chat-model", value: "NAME",
        help: "also check a chat model: served, able to chat, its context length (with --chat-provider openai: it answers)")

    var common: CommonOptions
    var model: String?
    var chatModel: String?
    var chatServer: ChatServerFlags

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        model = arguments.value(Self.model)
        chatModel = arguments.value(Self.chatModel)
        chatServer = ChatOptionsParser.parseServer(&arguments)
        try arguments.noOperands()
    }

    func run(_ console: Console) async throws -> Int32 {
        var settings = try Settings(common, console: console)
        settings.chatFlags = chatServer
        let checks = await TroveIndex.doctor(
            try settings.configuration, model: model, chatModel: chatModel,
            choice: try settings.embedderChoice(provider: nil, modelFlag: nil),
            embedderChosen: settings.embedderChosen(providerFlag: nil, modelFlag: model))
        for check in checks {
            let status = check.passed ? "ok     " : "problem"
            // What to do: a fix for a problem, the next step for what works but is not there yet.
            let fix = check.fix.map { " — \(check.passed ? "next" : "fix"): \($0)" } ?? ""
            console.print("\(status)  \(check.name): \(check.detail)\(fix)")
        }
        return checks.allSatisfy(\.passed) ? ExitCode.success : ExitCode.failure
    }
}
