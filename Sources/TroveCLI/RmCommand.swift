import Foundation
@preconcurrency import Glibc
import Ollama

/// `trove rm NAME`: deletes a model from Ollama, after confirmation.
struct RmCommand: Command {
    static let name = "rm"
    static let abstract = "Delete a model from Ollama (asks first unless --yes)."
    static let usage = "trove rm [--yes] [options] NAME"
    static let discussion = "Asks for confirmation on a terminal; without a terminal, --yes is required."
    static let optionGroups = [OptionGroup("Options", [yes, CommonOptions.apiKey] + CommonOptions.options)]

    static let yes = Option("--yes", short: "-y", help: "delete without asking")

    var common: CommonOptions
    var model: String
    var yes: Bool
    var apiKey: String?

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        yes = arguments.flag(Self.yes)
        apiKey = arguments.value(CommonOptions.apiKey)
        let names = arguments.operands
        guard let name = names.first else { throw UsageError("missing the model to delete (see: trove models)") }
        if names.count > 1 { throw UsageError("unexpected argument '\(names[1])': delete one model at a time") }
        model = name
    }

    func run(_ console: Console) async throws -> Int32 {
        let client = try Settings(common, console: console, apiKey: apiKey).client
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw UsageError(
                    "refusing to delete model '\(model)' without confirmation: no terminal to ask — add --yes")
            }
            console.error.write("Delete model '\(model)' from Ollama at \(client.baseText)? [y/N] ")
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard answer == "y" || answer == "yes" else {
                console.log("kept \(model)")
                return ExitCode.failure
            }
        }
        do {
            try await client.delete(model: model)
        } catch let error as OllamaError where error.kind == .modelMissing {
            console.log(
                "Error: model '\(model)' is not on Ollama at \(client.baseText) — nothing to delete (see: trove models)"
            )
            return ExitCode.failure
        }
        console.print("deleted \(model)")
        return ExitCode.success
    }
}
