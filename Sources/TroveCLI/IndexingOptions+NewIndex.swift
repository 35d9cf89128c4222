import Ollama
import TroveKit
import TroveSystem

/// What the commands that index (`trove index`, `trove watch`) decide for a new index: the built-in model when nothing
/// was chosen and no Ollama answers (it works with no server at all), and where a new default index lives.
extension IndexingOptions {
    /// The index, created when missing. A new one (no run recorded its embedder yet) is announced when it is the
    /// default one, and gets the embedder of `embedderForNewIndex`.
    func openForIndexing(_ settings: Settings, common: CommonOptions, console: Console, quiet: Bool) async throws
        -> TroveIndex
    {
        // Without --embedder/--model, an existing index keeps the embedder and model it was built with.
        let index = try createIndex(settings)
        guard try await index.provider() == nil else { return index }
        if !quiet, settings.resolve(Setting.index, flag: common.index) == nil {
            console.log(
                "new index at \(settings.location) (the default place; --index PATH or TROVE_INDEX chooses another)")
        }
        return try await embedderForNewIndex(index, settings: settings, console: console, quiet: quiet)
    }

    /// `index` itself, or, when no embedder was chosen (no `--provider`/`--embedder`, `--model`, `TROVE_PROVIDER`,
    /// `TROVE_EMBED_MODEL` or config key) and no Ollama answers, the same index with the built-in model, announced
    /// in one note line. A chosen embedder, or an index that records one, is never replaced.
    private func embedderForNewIndex(_ index: TroveIndex, settings: Settings, console: Console, quiet: Bool)
        async throws -> TroveIndex
    {
        guard !settings.embedderChosen(providerFlag: provider, modelFlag: model) else { return index }
        let client = settings.client
        do {
            _ = try await client.version()
            return index
        } catch let error as OllamaError where error.kind == .unreachable {
            // Nothing answers: the built-in model, when installed.
        } catch {
            return index
        }
        let builtin = try settings.createIndex(provider: .builtin, modelFlag: nil)
        guard BuiltinModelInstaller.isPresent(in: settings.modelFolder) else {
            throw NoEmbedderError(ollama: client.baseText)
        }
        if !quiet {
            console.log(
                "note: no Ollama answers at \(client.baseText), so this new index uses Trove's built-in model, "
                    + "all-MiniLM-L6-v2 (English, 384 dimensions, runs in this process); to move to an Ollama model "
                    + "later: trove index --reembed --embedder ollama --model nomic-embed-text")
        }
        return builtin
    }
}

/// A new index with nothing to embed it: no Ollama answers and the built-in model is not installed.
struct NoEmbedderError: TroveError, Equatable {
    var ollama: String
    var message: String {
        "cannot index: no Ollama answers at \(ollama) and the built-in model is not installed — start Ollama "
            + "(ollama serve), or install the built-in model (no server needed): \(BuiltinModelInstaller.command)"
    }
    var fault: Fault { .unavailable }
}
