/// A subcommand in the shape of swift-argument-parser: parsed options, then `run`.
protocol Command {
    /// The word after `trove`.
    static var name: String { get }
    /// One line for `trove help`.
    static var abstract: String { get }
    /// The usage line, e.g. `trove search [options] QUERY…`.
    static var usage: String { get }
    /// The options and examples shown by `--help`.
    static var details: String { get }

    /// Consumes the command's options from `arguments`; throws `UsageError` for anything it doesn't understand.
    init(parsing arguments: inout Arguments) throws
    /// Does the work and returns the exit status.
    func run(_ console: Console) async throws -> Int32
}

extension Command {
    static var helpText: String {
        "\(abstract)\n\nUsage: \(usage)\n\n\(details)"
    }
}

/// Options shared by every command that opens an index or talks to Ollama.
struct CommonOptions {
    var index: String?
    var ollama: String?

    init(parsing arguments: inout Arguments) throws {
        index = try arguments.value("--index")
        ollama = try arguments.value("--ollama")
    }

    static let help = """
          --index PATH        index file (default: $TROVE_INDEX, else $XDG_DATA_HOME/trove/index.sqlite)
          --ollama URL        Ollama server (default: $OLLAMA_HOST, else http://127.0.0.1:11434)
          -h, --help          show this help
        """
}
