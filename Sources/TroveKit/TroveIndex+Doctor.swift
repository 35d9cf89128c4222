import Foundation
import Ollama
import OpenAICompatible
import TroveStore

extension TroveIndex {
    /// Checks everything indexing and search depend on, one line each, for the index `configuration` names (which
    /// need not exist yet). The embedding model checked is `model`, else the index's, else `choice`'s default; the
    /// provider is the index's, else `choice`'s. `embedderChosen`: whether the user named an embedder or model anywhere
    /// (else a new index gets the built-in model when no Ollama answers, as `trove index` does).
    public static func doctor(
        _ configuration: TroveConfiguration, model: String?, chatModel: String?, choice: EmbedderChoice,
        embedderChosen: Bool = true
    ) async -> [DoctorCheck] {
        let location = configuration.location
        let manifest =
            location.mayExist ? (try? location.open(createIfMissing: false).manifest()) ?? nil : nil
        var doctor = Doctor(
            client: configuration.ollama, model: model ?? manifest?.model ?? choice.defaultOllamaModel,
            location: location, chatModel: chatModel)
        doctor.modelFolder = configuration.modelFolder
        doctor.extractionWorker = configuration.extractionWorker
        doctor.embedPrecision = configuration.embedPrecision
        doctor.provider = manifest?.provider ?? choice.defaultProvider ?? .ollama
        doctor.checksOllamaChat = configuration.chatProvider == .ollama
        doctor.newIndexFallsBackToBuiltin = manifest == nil && !embedderChosen && model == nil
        var checks = await doctor.run()
        if doctor.provider == .openai {
            if let server = configuration.openAI {
                checks += await Doctor.openAIEmbeddingChecks(server, model: model ?? manifest?.model ?? "")
            } else {
                checks.append(
                    DoctorCheck(
                        name: "embedding server", passed: false, detail: "the openai provider has no server named",
                        fix: "give --base-url URL (or OPENAI_BASE_URL)"))
            }
        }
        // Another chat provider is checked whether or not a model was named: it answers, or says why not.
        if configuration.chatProvider != .ollama {
            do {
                checks.append(await Doctor.chatCheck(try configuration.chatModel(named: chatModel ?? "")))
            } catch {
                checks.append(
                    DoctorCheck(name: "chat model", passed: false, detail: String(describing: error),
                        fix: "give --chat-base-url URL or --base-url URL"))
            }
        }
        return checks
    }
}
