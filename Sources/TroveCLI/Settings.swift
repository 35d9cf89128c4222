import Foundation
import Ollama
import OpenAICompatible
import Synchronization
import TroveKit

/// The effective settings of a run: flags over environment over the config file over built-in defaults.
struct Settings {
    static let defaultEmbedModel = "nomic-embed-text"
    static let defaultChatModel = "llama3.2"
    static let defaultSearchLimit = 10

    var indexPath: String
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

    init(_ common: CommonOptions, environment: [String: String], apiKey: String? = nil) throws {
        self.environment = environment
        apiKeyFlag = apiKey
        file = try ConfigFile.load(environment: environment)
        if common.index == nil, (environment["TROVE_INDEX"] ?? "").isEmpty, let path = file.index {
            indexPath = IndexLocation.expandingTilde(path, environment: environment)
        } else {
            indexPath = IndexLocation.resolve(flag: common.index, environment: environment)
        }
        do {
            if common.ollama == nil, (environment["OLLAMA_HOST"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty,
                let url = file.ollamaURL
            {
                ollamaURL = try OllamaHost.parse(url, source: "ollama_url in \(file.path)")
            } else {
                ollamaURL = try OllamaHost.resolve(flag: common.ollama, environment: environment)
            }
        } catch {
            throw UsageError(String(describing: error))
        }
        openAIURL = try Self.serverURL([common.baseURL, environment["OPENAI_BASE_URL"], file.baseURL], flag: "--base-url")
    }

    /// The first non-empty of `candidates` as an http(s) URL; anything else is a usage error naming `flag`.
    static func serverURL(_ candidates: [String?], flag: String) throws -> URL? {
        guard let base = candidates.compactMap({ $0 }).first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        else { return nil }
        guard let url = URL(string: base), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw UsageError("'\(base)' is not an http(s) URL — give the server's base, e.g. \(flag) http://127.0.0.1:8080/v1")
        }
        return url
    }

    /// Who writes answers: `--chat-provider`, else `TROVE_CHAT_PROVIDER`, else the file's `chat_provider`, else
    /// `ollama`.
    func chatProvider() throws -> String {
        let provider =
            [chatFlags.provider, environment["TROVE_CHAT_PROVIDER"], file.chatProvider].compactMap { $0 }
            .first { !$0.isEmpty } ?? "ollama"
        guard ["ollama", "openai"].contains(provider) else {
            throw UsageError("unknown chat provider '\(provider)' — use --chat-provider ollama or --chat-provider openai")
        }
        return provider
    }

    /// The OpenAI-compatible server that chats: `--chat-base-url`, else `TROVE_CHAT_BASE_URL`, else the file's
    /// `chat_base_url`, else the embedding server (`--base-url` …). Two are needed when one server cannot do both
    /// (llama.cpp serves one model per server).
    func chatServer() throws -> OpenAIClient? {
        let url =
            try Self.serverURL(
                [chatFlags.baseURL, environment["TROVE_CHAT_BASE_URL"], file.chatBaseURL], flag: "--chat-base-url")
            ?? openAIURL
        guard let url else { return nil }
        return OpenAIClient(baseURL: url, apiKey: try openAIKey(), timeout: file.requestTimeout ?? 300)
    }

    /// The key for the OpenAI-compatible server: `OPENAI_API_KEY`, else the file named by `api_key_file`, else what
    /// `api_key_command` prints. Read only when a server is named; never stored or printed.
    func openAIKey() throws -> String? {
        if let key = environment["OPENAI_API_KEY"], !key.isEmpty { return key }
        if let path = file.apiKeyFile {
            let full = IndexLocation.expandingTilde(path, environment: environment)
            guard let text = try? String(contentsOfFile: full, encoding: .utf8) else {
                throw UsageError("api_key_file \(full) (in \(file.path)) cannot be read — fix the path or its permissions")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let command = file.apiKeyCommand {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw UsageError("api_key_command (in \(file.path)) exited \(process.terminationStatus) — run it by hand to see why")
            }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return nil
    }

    /// A client of the OpenAI-compatible server, when one is named.
    func openAIClient() throws -> OpenAIClient? {
        guard let openAIURL else { return nil }
        return OpenAIClient(baseURL: openAIURL, apiKey: try openAIKey(), timeout: file.requestTimeout ?? 300)
    }

    /// The embedding provider for a new index: `TROVE_PROVIDER`, else `TROVE_EMBEDDER`, else the file's `provider`.
    var defaultProvider: String? {
        [environment["TROVE_PROVIDER"], environment["TROVE_EMBEDDER"], file.provider].compactMap { $0 }
            .first { !$0.isEmpty }
    }

    /// The settings of a command that may send the API key: warns on `console` (once per process) when the key
    /// was given in argv, or would travel in clear text to another machine.
    init(_ common: CommonOptions, console: Console, apiKey: String? = nil) throws {
        try self.init(common, environment: console.environment, apiKey: apiKey)
        for warning in keyWarnings where Self.warned.withLock({ $0.insert(warning).inserted }) {
            console.log("warning: " + warning)
        }
    }

    /// Warnings already shown by this process.
    private static let warned = Mutex(Set<String>())

    /// Why the API key may leak: given as `--api-key` (visible to every user in `ps`), or about to be sent over
    /// plain `http` to a host other than this machine.
    var keyWarnings: [String] {
        var warnings: [String] = []
        if let apiKeyFlag, !apiKeyFlag.isEmpty {
            warnings.append(
                "--api-key is visible to other users of this machine (ps, /proc) — set OLLAMA_API_KEY instead")
        }
        if apiKey != nil, ollamaURL.scheme?.lowercased() == "http", let host = ollamaURL.host(percentEncoded: false),
            !Self.isLoopback(host)
        {
            warnings.append("the API key is sent unencrypted over http to \(host) — use an https:// address")
        }
        return warnings
    }

    /// `localhost`, 127.0.0.0/8 or ::1: traffic that never leaves the machine.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// `--model`, else `TROVE_EMBED_MODEL`, else the file's `embed_model`, else `nomic-embed-text`.
    func embedModel(flag: String?) -> String {
        resolved(flag: flag, variable: "TROVE_EMBED_MODEL", file: file.embedModel, fallback: Self.defaultEmbedModel)
            .value
    }

    /// `--chat-model`, else `TROVE_CHAT_MODEL`, else the file's `chat_model`, else `llama3.2` on Ollama, and on an
    /// OpenAI-compatible server the first model it lists (empty here).
    func chatModel(flag: String?) -> String {
        let fallback = (try? chatProvider()) == "openai" ? "" : Self.defaultChatModel
        return resolved(flag: flag, variable: "TROVE_CHAT_MODEL", file: file.chatModel, fallback: fallback).value
    }

    /// Whether the user named a chat model (flag, environment or file) rather than getting the default.
    func chatModelChosen(flag: String?) -> Bool {
        resolved(flag: flag, variable: "TROVE_CHAT_MODEL", file: file.chatModel, fallback: Self.defaultChatModel)
            .source != "default"
    }

    /// `-n`, else the file's `search_limit`, else 10.
    func searchLimit(flag: Int?) -> Int { flag ?? file.searchLimit ?? Self.defaultSearchLimit }

    /// `--temperature`, else the file's `chat_temperature`, else the model's own default (nil).
    func chatTemperature(flag: Double?) -> Double? { flag ?? file.chatTemperature }

    /// The key sent as `Authorization: Bearer`, if any.
    var apiKey: String? {
        if let apiKeyFlag, !apiKeyFlag.isEmpty { return apiKeyFlag }
        return environment["OLLAMA_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The process's client for the effective server, with the file's timeout and the API key (one URLSession).
    var client: OllamaClient {
        SharedClients.ollama(
            baseURL: ollamaURL, requestTimeout: .seconds(file.requestTimeout ?? 300), apiKey: apiKey)
    }

    /// One effective value and where it came from.
    struct Entry: Equatable {
        var key: String
        var value: String
        var source: String
    }

    private func resolved(flag: String?, variable: String, file: String?, fallback: String) -> Entry {
        if let flag, !flag.isEmpty { return Entry(key: "", value: flag, source: "flag") }
        if let value = environment[variable], !value.isEmpty {
            return Entry(key: "", value: value, source: "environment \(variable)")
        }
        if let file { return Entry(key: "", value: file, source: "file \(self.file.path)") }
        return Entry(key: "", value: fallback, source: "default")
    }

    /// Every setting with its effective value and source, for `trove config`; the API key is shown only as set.
    func entries(common: CommonOptions, embedModelFlag: String? = nil, chatModelFlag: String? = nil) -> [Entry] {
        let inFile = "file \(file.path)"
        var list: [Entry] = []
        let ollamaSource: String =
            common.ollama != nil
            ? "flag --ollama"
            : !(environment["OLLAMA_HOST"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty
                ? "environment OLLAMA_HOST" : file.ollamaURL != nil ? inFile : "default"
        var url = ollamaURL.absoluteString
        while url.hasSuffix("/") { url.removeLast() }
        list.append(Entry(key: "ollama_url", value: url, source: ollamaSource))
        var embed = resolved(
            flag: embedModelFlag, variable: "TROVE_EMBED_MODEL", file: file.embedModel, fallback: Self.defaultEmbedModel
        )
        embed.key = "embed_model"
        var chat = resolved(
            flag: chatModelFlag, variable: "TROVE_CHAT_MODEL", file: file.chatModel, fallback: Self.defaultChatModel)
        chat.key = "chat_model"
        list += [embed, chat]
        let indexSource =
            common.index != nil
            ? "flag --index"
            : !(environment["TROVE_INDEX"] ?? "").isEmpty
                ? "environment TROVE_INDEX"
                : file.index != nil ? inFile : "default"
        list.append(Entry(key: "index", value: indexPath, source: indexSource))
        list.append(
            Entry(
                key: "search_limit", value: String(searchLimit(flag: nil)),
                source: file.searchLimit != nil ? inFile : "default"))
        list.append(
            Entry(
                key: "chat_temperature", value: file.chatTemperature.map { String($0) } ?? "(the model's default)",
                source: file.chatTemperature != nil ? inFile : "default"))
        list.append(
            Entry(
                key: "request_timeout", value: "\(ConfigFile.format(file.requestTimeout ?? 300)) s",
                source: file.requestTimeout != nil ? inFile : "default"))
        let keySource =
            (apiKeyFlag ?? "").isEmpty
            ? ((environment["OLLAMA_API_KEY"] ?? "").isEmpty ? "default" : "environment OLLAMA_API_KEY")
            : "flag --api-key"
        list.append(Entry(key: "api_key", value: apiKey == nil ? "(not set)" : "(set, hidden)", source: keySource))
        return list
    }
}

/// `--chat-provider` and `--chat-base-url` as given.
struct ChatServerFlags: Equatable {
    var provider: String?
    var baseURL: String?
}

/// `$XDG_CONFIG_HOME/trove/config.json` (or `~/.config/trove/config.json`, or `$TROVE_CONFIG`): a JSON object of
/// known keys. A missing file is fine; an unknown key or a bad value is an error naming the key and the file.
struct ConfigFile: Equatable {
    /// Where the file is (or would be).
    var path: String
    /// Whether it exists.
    var exists = false
    var ollamaURL: String?
    var embedModel: String?
    var chatModel: String?
    var index: String?
    var searchLimit: Int?
    var chatTemperature: Double?
    var requestTimeout: Double?
    /// The embedding provider for a new index: `ollama`, `openai` or `builtin`.
    var provider: String?
    /// Who writes answers: `ollama` or `openai`, and the OpenAI-compatible server for chat when not `base_url`'s.
    var chatProvider: String?
    var chatBaseURL: String?
    /// The OpenAI-compatible server's base URL.
    var baseURL: String?
    /// Where the OpenAI key is kept (the key itself never goes in this file), or the command that prints it.
    var apiKeyFile: String?
    var apiKeyCommand: String?

    static let keys = [
        "ollama_url", "embed_model", "chat_model", "index", "search_limit", "chat_temperature", "request_timeout",
        "provider", "base_url", "api_key_file", "api_key_command", "chat_provider", "chat_base_url",
    ]

    /// A problem with the file.
    struct Problem: Error, CustomStringConvertible, Equatable {
        var message: String
        var description: String { message }
    }

    /// The path the environment points at.
    static func path(environment: [String: String]) -> String {
        if let path = environment["TROVE_CONFIG"], !path.isEmpty {
            return IndexLocation.expandingTilde(path, environment: environment)
        }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/trove/config.json" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/root"
        return home + "/.config/trove/config.json"
    }

    /// Reads the file, if there is one.
    static func load(environment: [String: String]) throws -> ConfigFile {
        let path = path(environment: environment)
        guard let data = FileManager.default.contents(atPath: path) else {
            // There but unreadable (permissions, a folder): an error, since silently running without the user's
            // settings (another server, another index) is worse than stopping.
            var info = stat()
            if lstat(path, &info) == 0 {
                let reason =
                    (info.st_mode & S_IFMT) == S_IFDIR
                    ? "it is a folder" : access(path, R_OK) != 0 ? String(cString: strerror(errno)) : "it cannot be read"
                throw Problem(message: "config file \(path) cannot be read: \(reason) — fix it, or set TROVE_CONFIG")
            }
            if environment["TROVE_CONFIG"].map({ !$0.isEmpty }) == true {
                throw Problem(
                    message: "config file \(path) (from TROVE_CONFIG) cannot be read — create it or unset TROVE_CONFIG")
            }
            return ConfigFile(path: path)
        }
        return try parse(data, path: path)
    }

    /// Parses the text of a config file found at `path`.
    static func parse(_ data: Data, path: String) throws -> ConfigFile {
        var file = ConfigFile(path: path, exists: true)
        if String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return file }
        guard let any = try? JSONSerialization.jsonObject(with: data) else {
            throw Problem(message: "config file \(path) is not valid JSON — fix it, or see: trove config --help")
        }
        guard let object = any as? [String: Any] else {
            throw Problem(message: "config file \(path) must hold a JSON object like {\"chat_model\": \"llama3.2\"}")
        }
        for key in object.keys.sorted() where !keys.contains(key) {
            throw Problem(
                message:
                    "unknown key '\(key)' in config file \(path) — known keys: \(keys.sorted().joined(separator: ", "))"
            )
        }
        func bad(_ key: String, _ expected: String) -> Problem {
            let found =
                object[key].flatMap { try? JSONSerialization.data(withJSONObject: [$0]) }
                .map { String(String(decoding: $0, as: UTF8.self).dropFirst().dropLast()) } ?? "null"
            return Problem(message: "bad value for '\(key)' in config file \(path): expected \(expected), got \(found)")
        }
        func text(_ key: String) throws -> String? {
            guard let value = object[key] else { return nil }
            guard let text = value as? String, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw bad(key, "a non-empty string")
            }
            return text
        }
        // JSONValue tells `true` from `1`, which JSONSerialization's NSNumber does not.
        let typed = (try? JSONDecoder().decode([String: JSONValue].self, from: data)) ?? [:]
        func number(_ key: String) -> Double? { typed[key]?.numberValue }
        file.ollamaURL = try text("ollama_url")
        file.embedModel = try text("embed_model")
        file.chatModel = try text("chat_model")
        file.index = try text("index")
        file.provider = try text("provider")
        file.baseURL = try text("base_url")
        file.apiKeyFile = try text("api_key_file")
        file.apiKeyCommand = try text("api_key_command")
        file.chatProvider = try text("chat_provider")
        file.chatBaseURL = try text("chat_base_url")
        if let provider = file.chatProvider, !["ollama", "openai"].contains(provider) {
            throw Problem(message: "bad value for 'chat_provider' in config file \(path): expected ollama or openai")
        }
        if let provider = file.provider, !["ollama", "openai", "builtin"].contains(provider) {
            throw Problem(message: "bad value for 'provider' in config file \(path): expected ollama, openai or builtin")
        }
        if object["search_limit"] != nil {
            guard let value = number("search_limit"), value == value.rounded(), value >= 1, value <= 10_000 else {
                throw bad("search_limit", "a whole number from 1 to 10000")
            }
            file.searchLimit = Int(value)
        }
        if object["chat_temperature"] != nil {
            guard let value = number("chat_temperature"), value >= 0, value <= 2 else {
                throw bad("chat_temperature", "a number from 0 to 2")
            }
            file.chatTemperature = value
        }
        if object["request_timeout"] != nil {
            guard let value = number("request_timeout"), value > 0, value <= 86_400 else {
                throw bad("request_timeout", "a number of seconds above 0")
            }
            file.requestTimeout = value
        }
        if let url = file.ollamaURL {
            do { _ = try OllamaHost.parse(url, source: "ollama_url") } catch let error as OllamaHost.InvalidHost {
                throw Problem(message: "bad value for 'ollama_url' in config file \(path): \(error.reason)")
            }
        }
        return file
    }

    /// `300` or `2.5`.
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}
