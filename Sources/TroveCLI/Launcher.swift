/// Runs `trove` with its arguments: picks the command, parses, runs, and turns errors into messages and exit codes.
public enum Launcher {
    public static let version = "0.1.0"

    static var commands: [any Command.Type] {
        [
            IndexCommand.self, SearchCommand.self, AskCommand.self, ChatCommand.self, StatusCommand.self, DoctorCommand.self, ForgetCommand.self,
            VacuumCommand.self, ModelsCommand.self, PullCommand.self, RmCommand.self, ConfigCommand.self, EmbedCommand.self,
            ServeCommand.self,
        ]
    }

    /// Runs one invocation; `arguments` excludes the program name. Returns the exit status.
    public static func run(_ arguments: [String], console: Console) async -> Int32 {
        guard let first = arguments.first else {
            console.error.write(overview)
            return ExitCode.usage
        }
        switch first {
        case "-h", "--help":
            console.output.write(overview)
            return ExitCode.success
        case "--version", "version":
            console.print("trove \(version)")
            return ExitCode.success
        case "help":
            return help(topic: arguments.dropFirst().first, console: console)
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            console.log("Error: unknown command '\(first)'")
            console.log("Usage: trove <command> [options]   (see: trove help)")
            return ExitCode.usage
        }
        var rest = Arguments(Array(arguments.dropFirst()))
        if rest.flag("-h", "--help") {
            console.print(command.helpText)
            return ExitCode.success
        }
        do {
            let parsed = try command.init(parsing: &rest)
            return try await parsed.run(console)
        } catch let error as UsageError {
            console.log("Error: \(error.message)")
            console.log("Usage: \(command.usage)   (see: trove \(command.name) --help)")
            return ExitCode.usage
        } catch {
            console.log("Error: \(String(describing: error))")
            return ExitCode.forError(error)
        }
    }

    static func help(topic: String?, console: Console) -> Int32 {
        guard let topic else {
            console.output.write(overview)
            return ExitCode.success
        }
        guard let command = commands.first(where: { $0.name == topic }) else {
            console.log("Error: no help for '\(topic)': it is not a command")
            return ExitCode.usage
        }
        console.print(command.helpText)
        return ExitCode.success
    }

    static var overview: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.abstract)" }
        return """
            trove \(version) — search a folder of documents by meaning, on your own machine.

            Usage: trove <command> [options]

            Commands:
            \(list.joined(separator: "\n"))

            Run 'trove <command> --help' for a command's options.

            Environment:
              OLLAMA_HOST         Ollama server (host, host:port or URL; default 127.0.0.1:11434)
              TROVE_INDEX         index file (default $XDG_DATA_HOME/trove/index.sqlite)
              TROVE_EMBED_MODEL   embedding model for new indexes (default nomic-embed-text)
              TROVE_EMBEDDER      embedder for new indexes: ollama (default) or builtin
              TROVE_MODELS        folder of built-in models (default $XDG_DATA_HOME/trove/models)
              TROVE_EMBED_THREADS worker threads of the builtin embedder (default: one per CPU)
              TROVE_CHAT_MODEL    model that answers questions (default llama3.2)
              TROVE_CONFIG        config file (default $XDG_CONFIG_HOME/trove/config.json; see: trove config --help)
              OLLAMA_API_KEY      sent as Authorization: Bearer, for an Ollama behind a proxy
              NO_COLOR            no colour in output

            Exit status: 0 ok, 1 failure, 64 usage error, 69 Ollama unreachable or model missing, 130 interrupted.

            """
    }
}
