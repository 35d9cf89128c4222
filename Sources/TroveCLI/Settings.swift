import Foundation
import Ollama
import TroveKit

/// The effective settings of a run: flags over environment over built-in defaults.
struct Settings {
    static let defaultEmbedModel = "nomic-embed-text"

    var indexPath: String
    var ollamaURL: URL
    var environment: [String: String]

    init(_ common: CommonOptions, environment: [String: String]) throws {
        self.environment = environment
        indexPath = IndexLocation.resolve(flag: common.index, environment: environment)
        do {
            ollamaURL = try OllamaHost.resolve(flag: common.ollama, environment: environment)
        } catch {
            throw UsageError(String(describing: error))
        }
    }

    /// `--model`, else `TROVE_EMBED_MODEL`, else `nomic-embed-text`.
    func embedModel(flag: String?) -> String {
        if let flag, !flag.isEmpty { return flag }
        if let model = environment["TROVE_EMBED_MODEL"], !model.isEmpty { return model }
        return Self.defaultEmbedModel
    }

    var client: OllamaClient { OllamaClient(baseURL: ollamaURL) }
}
