// Every file of the module sees the option types, the parser and `UsageError`.
@_exported import TroveArguments

/// A subcommand in the shape of swift-argument-parser: declared options, parsed, then `run`.
///
/// Adding an option is one declaration (a `static let` of type `Option`, listed in `optionGroups`) and one line in
/// `init(parsing:)` that reads it; `--help`, the completions and the man page follow by themselves.
protocol Command {
    /// The word after `trove`.
    static var name: String { get }
    /// One line for `trove help`.
    static var abstract: String { get }
    /// The usage line, e.g. `trove search [options] QUERY…`.
    static var usage: String { get }
    /// Paragraphs `--help` shows before the options.
    static var discussion: String { get }
    /// The options, under the titles `--help` shows; `-h, --help` is added.
    static var optionGroups: [OptionGroup] { get }
    /// Paragraphs `--help` shows after the options (notes, examples).
    static var epilogue: String { get }
    /// What the operands are, for completion (`.folder`, `.file`; `.none` when there are none).
    static var operands: Option.Value { get }

    /// Reads the command's options from `arguments` (parsed against `optionGroups`); throws `UsageError`.
    init(parsing arguments: inout Arguments) throws
    /// Does the work and returns the exit status.
    func run(_ console: Console) async throws -> Int32
}

extension Command {
    static var discussion: String { "" }
    static var epilogue: String { "" }
    static var operands: Option.Value { .none }

    /// The declarations help, completions and the man page are generated from.
    static var spec: CommandSpec {
        CommandSpec(
            name: name, abstract: abstract, usage: usage, discussion: discussion, groups: optionGroups,
            epilogue: epilogue, operands: operands)
    }

    static var helpText: String { spec.helpText }

    /// Parses `words` against the declarations and builds the command.
    static func parse(_ words: [String]) throws -> Self {
        var arguments = try Arguments(words, options: spec.options)
        return try Self(parsing: &arguments)
    }
}

extension Arguments {
    /// Throws when operands were given to a command that takes none.
    func noOperands() throws {
        if let first = operands.first { throw UsageError("unexpected argument '\(first)'") }
    }
}

/// Options shared by every command that opens an index or talks to Ollama.
struct CommonOptions {
    static let index = Option(
        "--index", value: "PATH", .file,
        help: "index file, or a PostgreSQL + pgvector index: postgresql://USER@HOST/DB?schema=NAME (README)",
        default: "$TROVE_INDEX, else $XDG_DATA_HOME/trove/index.sqlite")
    static let ollama = Option(
        "--ollama", value: "URL", help: "Ollama server", default: "$OLLAMA_HOST, else http://127.0.0.1:11434")
    static let baseURL = Option(
        "--base-url", value: "URL", help: "OpenAI-compatible server (llama.cpp, LM Studio, vLLM, LocalAI, OpenAI)",
        default: "$OPENAI_BASE_URL, else the config file's base_url")
    /// For an Ollama behind a proxy (`models`, `pull`, `rm`).
    static let apiKey = Option(
        "--api-key", value: "KEY", help: "send Authorization: Bearer KEY", default: "$OLLAMA_API_KEY")
    /// Listed last in every command's help, after its own options.
    static let options = [index, ollama, baseURL]

    var index: String?
    var ollama: String?
    var baseURL: String?

    init(parsing arguments: inout Arguments) throws {
        index = arguments.value(Self.index)
        ollama = arguments.value(Self.ollama)
        baseURL = arguments.value(Self.baseURL)
    }
}
