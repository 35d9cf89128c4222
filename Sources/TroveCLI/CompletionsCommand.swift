/// `trove completions SHELL`: the completion script for bash, zsh or fish.
struct CompletionsCommand: Command {
    static let name = "completions"
    static let abstract = "Print the shell completion script for bash, zsh or fish."
    static let usage = "trove completions bash|zsh|fish"
    static let discussion = """
        Scripts/install.sh installs all three where each shell looks. To try one in the current shell:
          source <(trove completions bash)
          trove completions fish | source
        """
    static let optionGroups: [OptionGroup] = []
    static let operands = Option.Value.choice(Completions.Shell.allCases.map { Option.Choice($0.rawValue) })

    var shell: Completions.Shell

    init(parsing arguments: inout Arguments) throws {
        guard let word = arguments.operands.first, arguments.operands.count == 1 else {
            throw UsageError("name one shell: bash, zsh or fish")
        }
        guard let shell = Completions.Shell(rawValue: word) else {
            let hint = Suggestion.closest(to: word, among: Completions.Shell.allCases.map(\.rawValue))
            throw UsageError(
                "no completions for '\(word)': bash, zsh or fish" + (hint.map { " — did you mean '\($0)'?" } ?? ""))
        }
        self.shell = shell
    }

    func run(_ console: Console) async throws -> Int32 {
        console.output.write(Completions.script(shell, for: Launcher.program))
        return ExitCode.success
    }
}
