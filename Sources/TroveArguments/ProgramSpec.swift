/// A program of subcommands, as its overview, completions and man page describe it.
package struct ProgramSpec: Sendable {
    /// `trove`.
    package var name: String
    /// One line: what the program is for.
    package var summary: String
    package var commands: [CommandSpec]
    /// Environment variables it reads, with what each does.
    package var environment: [(name: String, help: String)]
    /// One line: what its exit codes mean.
    package var exitStatus: String

    package init(
        name: String, summary: String, commands: [CommandSpec], environment: [(name: String, help: String)] = [],
        exitStatus: String = ""
    ) {
        self.name = name
        self.summary = summary
        self.commands = commands
        self.environment = environment
        self.exitStatus = exitStatus
    }

    /// The command called `name`, or nil.
    package func command(_ name: String) -> CommandSpec? { commands.first { $0.name == name } }

    /// The error for a word that is no command, with a did-you-mean.
    package func unknownCommand(_ word: String) -> UsageError {
        let hint = Suggestion.closest(to: word, among: commands.map(\.name)).map { " — did you mean '\($0)'?" } ?? ""
        return UsageError("unknown command '\(word)'\(hint)")
    }
}
