import CBuildInfo

/// Runs `trove` with its arguments: picks the command, parses, runs, and turns errors into messages and exit codes.
package enum Launcher {
    package static let version = "0.1.0"

    static var commands: [any Command.Type] {
        [
            IndexCommand.self, SearchCommand.self, AskCommand.self, ChatCommand.self, StatusCommand.self,
            DoctorCommand.self, ForgetCommand.self, GetCommand.self,
            VacuumCommand.self, ModelsCommand.self, PullCommand.self, RmCommand.self, ConfigCommand.self,
            EmbedCommand.self,
            ServeCommand.self, McpCommand.self, WebCommand.self, WatchCommand.self, CompletionsCommand.self,
        ]
    }

    /// The whole command line as declared: what help, completions and the man page are made from.
    package static var program: ProgramSpec {
        ProgramSpec(
            name: "trove", summary: "search a folder of documents by meaning, on your own machine",
            commands: commands.map { $0.spec } + [HelpTopic.spec], environment: environment,
            exitStatus: "0 ok, 1 failure, 64 usage error, 69 Ollama unreachable or model missing, 130 interrupted.")
    }

    /// The environment variables trove reads, as its settings declare them.
    static var environment: [(name: String, help: String)] { Setting.environment }

    /// `trove 0.1.0 (commit 1a2b3c4, built 2026-12-01)`.
    static var versionLine: String {
        let commit = String(cString: trove_git_commit())
        let date = String(cString: trove_build_date())
        guard !commit.isEmpty || !date.isEmpty else {
            return "trove \(version) (development build: no commit or date recorded; Scripts/install.sh records them)"
        }
        return
            "trove \(version) (commit \(commit.isEmpty ? "unknown" : commit), built \(date.isEmpty ? "unknown" : date))"
    }

    /// Runs one invocation; `arguments` excludes the program name. Returns the exit status.
    package static func run(_ arguments: [String], console: Console) async -> Int32 {
        guard let first = arguments.first else {
            console.error.write(overview)
            return ExitCode.usage
        }
        switch first {
        case "-h", "--help":
            console.output.write(overview)
            return ExitCode.success
        case "--version", "version":
            console.print(versionLine)
            return ExitCode.success
        case "help":
            return help(Array(arguments.dropFirst()), console: console)
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            console.log("Error: \(program.unknownCommand(first).message)")
            console.log("Usage: trove <command> [options]   (see: trove help)")
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
            console.print(command.helpText)
            return ExitCode.success
        }
        do {
            return try await command.parse(rest).run(console)
        } catch {
            console.log("Error: \(String(describing: error))")
            let status = ExitCode.forError(error)
            // A usage fault (the command line, or a search request built from it) comes with the usage line.
            if status == ExitCode.usage { console.log("Usage: \(command.usage)   (see: trove \(command.name) --help)") }
            return status
        }
    }

    /// `trove help [COMMAND]`, and `trove help --man` for the man page.
    static func help(_ words: [String], console: Console) -> Int32 {
        guard let topic = words.first else {
            console.output.write(overview)
            return ExitCode.success
        }
        if topic == "--man" {
            console.output.write(ManPage.render(program, version: version, date: String(cString: trove_build_date())))
            return ExitCode.success
        }
        guard let command = program.command(topic) else {
            console.log("Error: no help for '\(topic)': \(program.unknownCommand(topic).message)")
            return ExitCode.usage
        }
        console.print(command.helpText)
        return ExitCode.success
    }

    static var overview: String {
        let visible = program.commands
        let width = visible.map { $0.name.count }.max() ?? 0
        let list = visible.map {
            "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.abstract)"
        }
        let variables = environment.map {
            "  " + $0.name.padding(toLength: max(20, $0.name.count + 1), withPad: " ", startingAt: 0) + $0.help
        }
        return """
            trove \(version) — \(program.summary).

            Usage: trove <command> [options]

            Commands:
            \(list.joined(separator: "\n"))

            Run 'trove <command> --help' or 'trove help <command>' for a command's options.

            Environment:
            \(variables.joined(separator: "\n"))

            Exit status: \(program.exitStatus)

            """
    }
}
