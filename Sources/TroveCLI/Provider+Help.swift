import TroveKit

/// What each provider means in the help of the options that choose one.
extension Provider {
    /// For `--provider` of `index`, `watch` and `embed`: what embeds.
    var embeddingHelp: String {
        switch self {
        case .ollama: "an embedding model served by Ollama"
        case .openai: "an OpenAI-compatible server's /v1/embeddings (--base-url)"
        case .builtin: "all-minilm-l6-v2 in-process, no server"
        }
    }

    /// For `--chat-provider`: who writes answers.
    var chatHelp: String {
        switch self {
        case .ollama: "a chat model served by Ollama"
        case .openai: "an OpenAI-compatible server's /v1/chat/completions (--chat-base-url, --base-url)"
        case .builtin: "no chat model: the built-in model only embeds"
        }
    }

    /// For `--provider` of `models`: whose models are listed.
    var modelsHelp: String {
        switch self {
        case .ollama: "the models pulled on Ollama"
        case .openai: "the model ids an OpenAI-compatible server lists on /v1/models (--base-url)"
        case .builtin: "the built-in model"
        }
    }
}
