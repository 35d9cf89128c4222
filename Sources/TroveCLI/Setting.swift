import Ollama
import TroveKit

/// One setting, declared once, as `Option` declares a flag: the flag, environment variables and config-file key that
/// give it, its default and its help. The precedence (flag > environment > file > default, in `Settings.resolve`),
/// the Environment section of `trove --help` and of the man page, `trove config` and the key table of
/// `trove config --help` are all made from `Setting.all`, so none of them can forget one.
struct Setting: Sendable {
    /// An environment variable that gives the setting, with its line in the Environment section.
    struct Variable: Sendable {
        var name: String
        var help: String
    }

    /// What a value must be, as the config file checks it.
    enum Value: Sendable {
        /// A non-empty string.
        case text
        /// An Ollama server, as `OLLAMA_HOST` accepts it.
        case host
        /// One of these providers.
        case provider([Provider])
        /// A whole number within the range.
        case wholeNumber(ClosedRange<Int>)
        /// A number within the range.
        case number(ClosedRange<Double>)
        /// Seconds above 0, up to a day.
        case seconds
    }

    /// The name `trove config` lists it under, which is its config-file key when `inFile`; nil when `trove config`
    /// does not list it (colour, the models folder, the config file itself).
    var key: String?
    /// Whether the config file may give it.
    var inFile = true
    /// The source `trove config` shows when a flag gave it: `flag --ollama`, or just `flag`.
    var flagSource = "flag"
    /// The environment variables that give it, the first set one winning.
    var variables: [Variable] = []
    /// What the config file must hold.
    var value = Value.text
    /// The key's line in `trove config --help`.
    var keyHelp = ""
    /// The default, as `trove config` shows it.
    var fallback = "(not set)"

    /// Every setting, in the order `trove config`, its `--help` and the Environment section list them.
    static let all: [Setting] = [
        ollamaURL, embedModel, chatModel, index, searchLimit, chatTemperature, requestTimeout, provider, baseURL,
        apiKeyFile, apiKeyCommand, chatProvider, chatBaseURL, apiKey, openAIKey, models, embedThreads, embedPrecision,
        instructionLimit, config,
        noColor, colorForce,
    ]

    /// The keys the config file may hold.
    static var fileKeys: [String] { all.filter(\.inFile).compactMap(\.key) }

    /// The Environment section of `trove --help` and of the man page.
    static var environment: [(name: String, help: String)] {
        all.flatMap(\.variables).map { ($0.name, $0.help) }
    }

    static let ollamaURL = Setting(
        key: "ollama_url", flagSource: "flag --ollama",
        variables: [Variable(name: "OLLAMA_HOST", help: "Ollama server (host, host:port or URL; default 127.0.0.1:11434)")],
        value: .host, keyHelp: "Ollama server, as OLLAMA_HOST accepts it")
    static let embedModel = Setting(
        key: "embed_model",
        variables: [Variable(name: "TROVE_EMBED_MODEL", help: "embedding model for new indexes (default nomic-embed-text)")],
        keyHelp: "embedding model for new indexes", fallback: EmbedderChoice.defaultOllamaModel)
    static let chatModel = Setting(
        key: "chat_model",
        variables: [Variable(name: "TROVE_CHAT_MODEL", help: "model that answers questions (default llama3.2)")],
        keyHelp: "model that answers questions", fallback: "llama3.2")
    static let index = Setting(
        key: "index", flagSource: "flag --index",
        variables: [Variable(name: "TROVE_INDEX", help: "index file (default $XDG_DATA_HOME/trove/index.sqlite)")],
        keyHelp: "index file")
    static let searchLimit = Setting(
        key: "search_limit", value: .wholeNumber(1...10_000), keyHelp: "passages a search shows, 1 to 10000",
        fallback: "10")
    static let chatTemperature = Setting(
        key: "chat_temperature", value: .number(0...2), keyHelp: "sampling temperature for answers, 0 to 2",
        fallback: "(the model's default)")
    static let requestTimeout = Setting(
        key: "request_timeout", value: .seconds, keyHelp: "seconds to wait for a reply from Ollama", fallback: "300")
    static let provider = Setting(
        key: "provider", flagSource: "flag --provider",
        variables: [
            Variable(
                name: "TROVE_PROVIDER",
                help: "embedder for new indexes: \(Provider.ollama) (default), "
                    + Provider.spelled(Provider.allCases.filter { $0 != .ollama })),
            Variable(name: "TROVE_EMBEDDER", help: "the same, when TROVE_PROVIDER is not set"),
        ],
        value: .provider(Provider.allCases), keyHelp: "embedder of new indexes: \(Provider.spelled())",
        fallback: Provider.ollama.rawValue)
    static let baseURL = Setting(
        key: "base_url", flagSource: "flag --base-url",
        variables: [
            Variable(name: "OPENAI_BASE_URL", help: "OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
        ],
        keyHelp: "OpenAI-compatible server's base URL")
    static let apiKeyFile = Setting(key: "api_key_file", keyHelp: "file holding the OpenAI-compatible server's key")
    static let apiKeyCommand = Setting(key: "api_key_command", keyHelp: "command that prints that key")
    static let chatProvider = Setting(
        key: "chat_provider", flagSource: "flag --chat-provider",
        variables: [
            Variable(
                name: "TROVE_CHAT_PROVIDER",
                help: "who writes answers: \(Provider.ollama) (default) or "
                    + Provider.spelled(Provider.chatting.filter { $0 != .ollama }))
        ],
        value: .provider(Provider.chatting), keyHelp: "who writes answers: \(Provider.spelled(Provider.chatting))",
        fallback: Provider.ollama.rawValue)
    static let chatBaseURL = Setting(
        key: "chat_base_url", flagSource: "flag --chat-base-url",
        variables: [
            Variable(name: "TROVE_CHAT_BASE_URL", help: "OpenAI-compatible server that chats, when not OPENAI_BASE_URL's")
        ],
        keyHelp: "server that chats, when not base_url's")
    /// Ollama's key: never in the file, and shown by `trove config` only as set or not.
    static let apiKey = Setting(
        key: "api_key", inFile: false, flagSource: "flag --api-key",
        variables: [Variable(name: "OLLAMA_API_KEY", help: "sent as Authorization: Bearer, for an Ollama behind a proxy")])
    static let openAIKey = Setting(
        inFile: false,
        variables: [
            Variable(
                name: "OPENAI_API_KEY",
                help: "key of the OpenAI-compatible server (else the file's api_key_file, api_key_command)")
        ])
    static let models = Setting(
        inFile: false,
        variables: [Variable(name: "TROVE_MODELS", help: "folder of built-in models (default $XDG_DATA_HOME/trove/models)")])
    static let embedThreads = Setting(
        inFile: false,
        variables: [
            Variable(name: "TROVE_EMBED_THREADS", help: "worker threads of the builtin embedder (default: one per CPU)")
        ])
    static let embedPrecision = Setting(
        inFile: false, flagSource: "flag --precision",
        variables: [
            Variable(
                name: "TROVE_EMBED_PRECISION",
                help: "builtin embedder's arithmetic for indexing: fp32, bf16, int8, int16 or auto (default)")
        ])
    /// Read by TroveBLAS's `CPU` (`CPU.Limit`) before any other setting, so declared here for the help alone.
    static let instructionLimit = Setting(
        inFile: false,
        variables: [
            Variable(
                name: "TROVE_ISA",
                help: "use no instructions past this set: avx-vnni, avx2 or baseline (default: all the CPU has; for measuring)")
        ])
    static let config = Setting(
        inFile: false,
        variables: [
            Variable(
                name: "TROVE_CONFIG",
                help: "config file (default $XDG_CONFIG_HOME/trove/config.json; see: trove config --help)")
        ])
    static let noColor = Setting(inFile: false, variables: [Variable(name: "NO_COLOR", help: "no colour in output")])
    static let colorForce = Setting(
        inFile: false,
        variables: [
            Variable(name: "CLICOLOR_FORCE", help: "colour even when the output is not a terminal (NO_COLOR wins)")
        ])

    /// The key table of `trove config --help`: each key, its help and the variables that beat it.
    static var keyTable: String {
        all.filter(\.inFile).compactMap { setting -> String? in
            guard let key = setting.key else { return nil }
            let line = "  " + key.padding(toLength: 20, withPad: " ", startingAt: 0) + setting.keyHelp
            guard !setting.variables.isEmpty else { return line }
            let names = setting.variables.map(\.name).joined(separator: ", ")
            return line.padding(toLength: max(69, line.count + 1), withPad: " ", startingAt: 0) + "(env: \(names))"
        }.joined(separator: "\n")
    }
}
