import TroveKit
import TroveServe

/// How a command opens its index and picks its embedder: `--provider`, else the index's, else `TROVE_PROVIDER`
/// (and the rest of its setting), else `ollama`.
extension Settings {
    /// The built-in model's folder (`TROVE_MODELS`, `XDG_DATA_HOME`, `HOME`).
    var modelFolder: String { TroveConfiguration.defaultModelFolder(environment: environment) }

    /// Everything that decides which model server embeds a search's query: a `trove serve` whose index uses other
    /// settings (another `--ollama` for an index of Ollama's) refuses this client's searches instead of answering.
    var servingAdmission: SearchServer.Admission {
        var url = ollamaURL.absoluteString
        while url.hasSuffix("/") { url.removeLast() }
        return SearchServer.Admission(
            ollama: url, builtinModels: modelFolder, openAI: openAIURL?.absoluteString ?? "")
    }

    /// What TroveKit needs to open the index these settings name.
    var configuration: TroveConfiguration {
        get throws {
            var configuration = TroveConfiguration(
                location: location, ollama: client, modelFolder: modelFolder, embedThreads: try embedThreads())
            configuration.embedPrecision = try embedPrecision()
            configuration.openAI = try openAIClient()
            configuration.chatProvider = try chatProvider()
            if configuration.chatProvider == .openai { configuration.chatServer = try chatServer() }
            configuration.extractionWorker = extractionWorker
            return configuration
        }
    }

    /// For the commands that answer: a chat provider that cannot be reached as configured is a usage error.
    func checkChatServer() throws {
        guard try chatProvider() == .openai, try chatServer() == nil else { return }
        throw UsageError(
            "--chat-provider openai needs a server — give --chat-base-url URL or --base-url URL (or "
                + "TROVE_CHAT_BASE_URL, OPENAI_BASE_URL), e.g. --chat-base-url http://127.0.0.1:8081/v1")
    }

    /// The embedding provider for a new index: `TROVE_PROVIDER`, else `TROVE_EMBEDDER`, else the file's `provider`.
    func defaultProvider() throws -> Provider? {
        try EmbedderFactory.provider(resolve(Setting.provider, flag: nil)?.value)
    }

    /// Whether the user named an embedder or a model anywhere: flag, environment variable or config file. When not,
    /// a new index gets the built-in model where no Ollama answers.
    func embedderChosen(providerFlag: Provider?, modelFlag: String?) -> Bool {
        providerFlag != nil || modelFlag != nil || resolve(Setting.provider, flag: nil) != nil
            || resolve(Setting.embedModel, flag: nil) != nil
    }

    /// The `--provider` and `--model` flags with the environment's defaults for a new index.
    func embedderChoice(provider: Provider?, modelFlag: String?) throws -> EmbedderChoice {
        // The default is read only when no flag names a provider: a bad one is no error then.
        EmbedderChoice(
            provider: provider, model: modelFlag, defaultProvider: provider != nil ? nil : try usage { try defaultProvider() },
            defaultOllamaModel: embedModel(flag: nil))
    }

    /// The existing index, with the embedder it records.
    func openIndex() throws -> TroveIndex { try TroveIndex(opening: configuration) }

    /// The index, created when missing, with the embedder the flags name (an existing index keeps its own).
    func createIndex(provider: Provider?, modelFlag: String?) throws -> TroveIndex {
        let configuration = try configuration
        let choice = try embedderChoice(provider: provider, modelFlag: modelFlag)
        return try usage { try TroveIndex(creating: configuration, embedder: choice) }
    }

    /// The embedder the flags name, for `trove embed` (no index involved).
    func embedder(provider: Provider?, modelFlag: String?) throws -> any Embedder {
        let configuration = try configuration
        let choice = try embedderChoice(provider: provider, modelFlag: modelFlag)
        return try usage { try configuration.embedder(choice) }
    }

    /// An impossible `--embedder`/`--model` combination is a usage error (exit 64).
    private func usage<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as EmbedderChoiceError { throw UsageError(error.message) }
    }
}
