import Foundation
import OpenAICompatible
import Synchronization
import TroveKit

/// `--chat-provider` and `--chat-base-url` as given.
struct ChatServerFlags: Equatable {
    var provider: String?
    var baseURL: String?
}

/// The OpenAI-compatible servers, who writes answers, and the keys: where each comes from, and the warnings a key
/// given unsafely earns.
extension Settings {
    /// `text` as an http(s) URL; nil for none; anything else is a usage error naming `flag`.
    static func serverURL(_ text: String?, flag: String) throws -> URL? {
        guard let base = text else { return nil }
        guard let url = URL(string: base), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw UsageError("'\(base)' is not an http(s) URL — give the server's base, e.g. \(flag) http://127.0.0.1:8080/v1")
        }
        return url
    }

    /// Who writes answers: `--chat-provider`, else `TROVE_CHAT_PROVIDER`, else the file's `chat_provider`, else
    /// `ollama`.
    func chatProvider() throws -> Provider {
        let word = resolve(Setting.chatProvider, flag: chatFlags.provider)?.value ?? Setting.chatProvider.fallback
        guard let provider = Provider(rawValue: word), provider.chats else {
            throw UsageError(
                "unknown chat provider '\(word)' — use \(Provider.spelled(Provider.chatting, prefix: "--chat-provider "))")
        }
        return provider
    }

    /// The OpenAI-compatible server that chats: `--chat-base-url`, else `TROVE_CHAT_BASE_URL`, else the file's
    /// `chat_base_url`, else the embedding server (`--base-url` …). Two are needed when one server cannot do both
    /// (llama.cpp serves one model per server).
    func chatServer() throws -> OpenAIClient? {
        let url =
            try Self.serverURL(resolve(Setting.chatBaseURL, flag: chatFlags.baseURL)?.value, flag: "--chat-base-url")
            ?? openAIURL
        guard let url else { return nil }
        return OpenAIClient(baseURL: url, apiKey: try openAIKey(), timeout: requestTimeout)
    }

    /// The OpenAI-compatible chat server `trove web` offers beside Ollama: the one answers go to, or one named for
    /// chat (`--chat-base-url`, `TROVE_CHAT_BASE_URL`, `chat_base_url`). An embedding server alone (`--base-url`)
    /// is not offered. Resolved only by `trove web`, so other commands never read a key for a server they do not use.
    func offeredChatServer() throws -> OpenAIClient? {
        guard try chatProvider() == .openai || resolve(Setting.chatBaseURL, flag: chatFlags.baseURL) != nil else {
            return nil
        }
        return try chatServer()
    }

    /// The key for the OpenAI-compatible server: `OPENAI_API_KEY`, else the file named by `api_key_file`, else what
    /// `api_key_command` prints. Read only when a server is named; never stored or printed.
    func openAIKey() throws -> String? {
        if let key = resolve(Setting.openAIKey, flag: nil) { return key.value }
        if let path = file.text(Setting.apiKeyFile) {
            let full = IndexLocation.expandingTilde(path, environment: environment)
            guard let text = try? String(contentsOfFile: full, encoding: .utf8) else {
                throw UsageError("api_key_file \(full) (in \(file.path)) cannot be read — fix the path or its permissions")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let command = file.text(Setting.apiKeyCommand) {
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
        return OpenAIClient(baseURL: openAIURL, apiKey: try openAIKey(), timeout: requestTimeout)
    }

    /// The settings of a command that may send the API key: warns on `console` (once per process) when the key
    /// was given in argv, or would travel in clear text to another machine.
    init(_ common: CommonOptions, console: Console, apiKey: String? = nil) throws {
        try self.init(common, environment: console.environment, apiKey: apiKey)
        extractionWorker = console.extractionWorker
        for warning in keyWarnings where warned.withLock({ $0.insert(warning).inserted }) {
            console.log("warning: " + warning)
        }
    }

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
}

/// Warnings already shown by this process.
private let warned = Mutex(Set<String>())
