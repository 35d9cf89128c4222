import Foundation
@preconcurrency import Glibc
import Ollama

/// `trove rm NAME`: deletes a model from Ollama, after confirmation.
struct RmCommand: Command {
    static let name = "rm"
    static let abstract = "Delete a model from Ollama (asks first unless --yes)."
    static let usage = "trove rm [--yes] [options] NAME"
    static let discussion = "Asks for confirmation on a terminal; without a terminal, --yes is required."
    static let optionGroups = [OptionGroup("Options", [yes] + ModelServerOptions.options)]

    static let yes = Option("--yes", short: "-y", help: "delete without asking")

    var server: ModelServerOptions
    var model: String
    var yes: Bool

    init(parsing arguments: inout Arguments) throws {
        server = try ModelServerOptions(parsing: &arguments)
        yes = arguments.flag(Self.yes)
        model = try ModelServerOptions.oneModel(
            arguments, missing: "missing the model to delete (see: trove models)", verb: "delete")
    }

    func run(_ console: Console) async throws -> Int32 {
        let client = try server.settings(console).client
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
