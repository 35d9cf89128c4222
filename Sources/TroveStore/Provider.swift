/// Who turns text into vectors (and, but for `builtin`, may write answers): the one closed set behind `--provider`,
/// `--chat-provider`, `TROVE_PROVIDER`, the config file's `provider` and the index's manifest. Spelled by its raw
/// value everywhere a user reads or writes it; parsed once, where the text comes in.
public enum Provider: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A model served by Ollama (`--ollama`, `OLLAMA_HOST`).
    case ollama
    /// An OpenAI-compatible server (`--base-url`): llama.cpp, LM Studio, vLLM, LocalAI, OpenAI.
    case openai
    /// all-MiniLM-L6-v2 in-process: no server, embeds only.
    case builtin

    /// The providers that can write answers (`--chat-provider`).
    public static let chatting: [Provider] = [.ollama, .openai]

    /// The word a user types and reads: the raw value.
    public var description: String { rawValue }

    /// Whether this provider can write answers.
    public var chats: Bool { Self.chatting.contains(self) }

    /// `ollama, openai or builtin` for messages and help, each word after `prefix` (`--provider `, say).
    package static func spelled(_ providers: [Provider] = allCases, prefix: String = "") -> String {
        let words = providers.map { prefix + $0.rawValue }
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }
}
