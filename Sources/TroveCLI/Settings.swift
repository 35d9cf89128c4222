import Foundation
import Ollama
import TroveKit
import TroveSystem

/// The effective settings of a run: flags over environment over the config file over built-in defaults, for the
/// settings `Setting.all` declares.
struct Settings {
    /// Where the index lives, parsed once.
    var location: IndexLocation
    var ollamaURL: URL
    var environment: [String: String]
    /// The config file, read once (empty when there is none).
    var file: ConfigFile
    /// `--api-key`, for an Ollama behind a proxy; else `OLLAMA_API_KEY`. Never printed or stored.
    var apiKeyFlag: String?
    /// The OpenAI-compatible server: `--base-url`, else `OPENAI_BASE_URL`, else the file's `base_url`.
    var openAIURL: URL?
    /// `--chat-provider` and `--chat-base-url`, for the commands that answer.
    var chatFlags = ChatServerFlags()
    /// `--precision` of `trove index`, over `TROVE_EMBED_PRECISION`.
    var precisionFlag: String?
    /// The argv that starts the extraction worker (the console's).
    var extractionWorker: [String]?

    init(_ common: CommonOptions, environment: [String: String], apiKey: String? = nil) throws {
        self.environment = environment
        apiKeyFlag = apiKey
        file = try ConfigFile.load(environment: environment)
        location = IndexLocation.standard(environment: environment)
        ollamaURL = OllamaHost.defaultURL
        if let index = resolve(Setting.index, flag: common.index) {
            location = IndexLocation.parse(index.value, environment: environment)
        }
        if let host = resolve(Setting.ollamaURL, flag: common.ollama) {
            do {
                ollamaURL = try OllamaHost.parse(host.value, source: host.origin.name(of: Setting.ollamaURL, file: file))
            } catch {
                throw UsageError(String(describing: error))
            }
        }
        openAIURL = try Self.serverURL(resolve(Setting.baseURL, flag: common.baseURL)?.value, flag: "--base-url")
    }

    /// Where a value came from.
    enum Origin: Equatable {
        /// A flag, as `trove config` names it (`flag --ollama`, or `flag`).
        case flag(String)
        /// This environment variable.
        case environment(String)
        /// The config file at this path.
        case file(String)
        /// The built-in default.
        case fallback

        /// As `trove config` shows it.
        var source: String {
            switch self {
            case .flag(let source): source
            case .environment(let name): "environment \(name)"
            case .file(let path): "file \(path)"
            case .fallback: "default"
            }
        }

        /// As an error about the value names it: `--ollama`, `OLLAMA_HOST`, `ollama_url in FILE`.
        func name(of setting: Setting, file: ConfigFile) -> String {
            switch self {
            case .flag(let source): source.hasPrefix("flag ") ? String(source.dropFirst(5)) : source
            case .environment(let name): name
            case .file, .fallback: "\(setting.key ?? "") in \(file.path)"
            }
        }
    }

    /// One effective value and where it came from.
    struct Entry: Equatable {
        var key: String
        var value: String
        var origin: Origin
        var source: String { origin.source }
    }

    /// `setting`'s effective text: `flag`, else its first set environment variable, else the file's; nil when none
    /// is given (blank counts as not given), and the default applies. The one place the precedence is written.
    func resolve(_ setting: Setting, flag: String?) -> Entry? {
        let key = setting.key ?? ""
        func given(_ text: String?) -> String? {
            text.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        }
        if let flag = given(flag) { return Entry(key: key, value: flag, origin: .flag(setting.flagSource)) }
        for variable in setting.variables {
            if let value = given(environment[variable.name]) {
                return Entry(key: key, value: value, origin: .environment(variable.name))
            }
        }
        if setting.inFile, let value = setting.key.flatMap({ file.values[$0] }) {
            let text = value.stringValue ?? value.doubleValue.map { setting.value.show($0) } ?? ""
            return Entry(key: key, value: text, origin: .file(file.path))
        }
        return nil
    }

    /// `--model`, else `TROVE_EMBED_MODEL`, else the file's `embed_model`, else `nomic-embed-text`.
    func embedModel(flag: String?) -> String {
        resolve(Setting.embedModel, flag: flag)?.value ?? Setting.embedModel.fallback
    }

    /// `--chat-model`, else `TROVE_CHAT_MODEL`, else the file's `chat_model`, else `llama3.2` on Ollama, and on an
    /// OpenAI-compatible server the first model it lists (empty here).
    func chatModel(flag: String?) -> String {
        let fallback = (try? chatProvider()) == .openai ? "" : Setting.chatModel.fallback
        return resolve(Setting.chatModel, flag: flag)?.value ?? fallback
    }

    /// Whether the user named a chat model (flag, environment or file) rather than getting the default.
    func chatModelChosen(flag: String?) -> Bool { resolve(Setting.chatModel, flag: flag) != nil }

    /// `-n`, else the file's `search_limit`, else 10.
    func searchLimit(flag: Int?) -> Int {
        flag ?? file.number(Setting.searchLimit).map { Int($0) } ?? Int(Setting.searchLimit.fallback)!
    }

    /// `--temperature`, else the file's `chat_temperature`, else the model's own default (nil).
    func chatTemperature(flag: Double?) -> Double? { flag ?? file.number(Setting.chatTemperature) }

    /// The file's `request_timeout`, else 300 seconds.
    var requestTimeout: Double { file.number(Setting.requestTimeout) ?? Double(Setting.requestTimeout.fallback)! }

    /// `TROVE_EMBED_THREADS`, the built-in embedder's worker threads (at least 1); nil is one per CPU.
    func embedThreads() throws -> Int? {
        guard let entry = resolve(Setting.embedThreads, flag: nil) else { return nil }
        guard let threads = Int(entry.value.trimmingCharacters(in: .whitespaces)) else {
            throw UsageError(
                "\(entry.origin.name(of: Setting.embedThreads, file: file)) '\(entry.value)' is not a number of "
                    + "threads — give a whole number, e.g. 4, or unset it for one per CPU")
        }
        return max(1, threads)
    }

    /// `--precision`, else `TROVE_EMBED_PRECISION`: the built-in embedder's products when indexing; nil (or `auto`)
    /// is this CPU's best.
    func embedPrecision() throws -> EmbedPrecision? {
        guard let entry = resolve(Setting.embedPrecision, flag: precisionFlag) else { return nil }
        let word = entry.value.trimmingCharacters(in: .whitespaces).lowercased()
        let name = entry.origin.name(of: Setting.embedPrecision, file: file)
        if word == "auto" { return nil }
        guard let precision = EmbedPrecision(rawValue: word) else {
            let words = EmbedPrecision.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("\(name) '\(entry.value)' is not a precision — give \(words) or auto")
        }
        guard precision.isSupported else {
            throw UsageError("\(name) \(word): this CPU lacks the instructions (\(precision.instructions)) — use fp32 or auto")
        }
        return precision
    }

    /// The key sent as `Authorization: Bearer`, if any.
    var apiKey: String? { resolve(Setting.apiKey, flag: apiKeyFlag)?.value }

    /// The process's client for the effective server, with the file's timeout and the API key (one URLSession).
    var client: OllamaClient {
        SharedClients.ollama(baseURL: ollamaURL, requestTimeout: .seconds(requestTimeout), apiKey: apiKey)
    }

    /// Every setting `trove config` lists, with its effective value and source; the API key is shown only as set.
    func entries(common: CommonOptions, embedModelFlag: String? = nil, chatModelFlag: String? = nil) -> [Entry] {
        let flags: [String: String] = [
            "ollama_url": common.ollama, "index": common.index, "base_url": common.baseURL,
            "embed_model": embedModelFlag, "chat_model": chatModelFlag, "api_key": apiKeyFlag,
            "chat_provider": chatFlags.provider, "chat_base_url": chatFlags.baseURL,
        ].compactMapValues { $0 }
        return Setting.all.compactMap { setting in
            guard let key = setting.key else { return nil }
            let given = resolve(setting, flag: flags[key])
            var entry = given ?? Entry(key: key, value: setting.fallback, origin: .fallback)
            switch key {
            case Setting.ollamaURL.key:
                var url = ollamaURL.absoluteString
                while url.hasSuffix("/") { url.removeLast() }
                entry.value = url
            case Setting.index.key: entry.value = location.text
            case Setting.apiKey.key: entry.value = given == nil ? "(not set)" : "(set, hidden)"
            case Setting.requestTimeout.key: entry.value += " s"
            default: break
            }
            return entry
        }
    }
}

extension Setting.Value {
    /// A number from the config file as `trove config` shows it: `5`, `0.7`, `2.5`.
    func show(_ number: Double) -> String {
        switch self {
        case .wholeNumber: String(Int(number))
        case .seconds: number.plainText
        default: String(number)
        }
    }
}
