/// The options of the commands that manage Ollama's models (`models`, `pull`, `rm`), declared and read once: the
/// common ones and the API key of an Ollama behind a proxy.
struct ModelServerOptions {
    /// Listed after each command's own options.
    static let options = [CommonOptions.apiKey] + CommonOptions.options

    var common: CommonOptions
    /// `--api-key`, when given.
    var apiKey: String?

    /// Reads the options from `arguments`.
    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        apiKey = arguments.value(CommonOptions.apiKey)
    }

    /// The settings these options give, warning on `console` about a key given unsafely.
    func settings(_ console: Console) throws -> Settings { try Settings(common, console: console, apiKey: apiKey) }

    /// The one model a command acts on: a usage error saying `missing` without one, and naming the `verb` with more.
    static func oneModel(_ arguments: Arguments, missing: String, verb: String) throws -> String {
        let names = arguments.operands
        guard let name = names.first else { throw UsageError(missing) }
        if names.count > 1 { throw UsageError("unexpected argument '\(names[1])': \(verb) one model at a time") }
        return name
    }
}
