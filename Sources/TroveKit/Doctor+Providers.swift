import OpenAICompatible

/// `trove doctor`'s checks of an OpenAI-compatible embedding server and of a chat model on either provider.
extension Doctor {
    /// The embedding server: reachable and serving `model` (`/v1/models`), and the dimension of its vectors.
    static func openAIEmbeddingChecks(_ client: OpenAIClient, model: String) async -> [DoctorCheck] {
        let served: [String]
        do { served = try await client.models() } catch {
            return [
                DoctorCheck(
                    name: "embedding server", passed: false, detail: String(describing: error),
                    fix: "start the server at \(client.displayURL), or fix --base-url")
            ]
        }
        var checks = [
            DoctorCheck(
                name: "embedding server", passed: true,
                detail: "\(client.displayURL) serves \(served.isEmpty ? "(no list)" : served.joined(separator: ", "))")
        ]
        do {
            let info = try await OpenAIEmbedder(client: client, model: model).inspect()
            let context = info.contextLength.map { ", context \($0) tokens" } ?? ""
            checks.append(
                DoctorCheck(
                    name: "embedding model", passed: true,
                    detail: "'\(model)' embeds: \(info.dimension) dimensions\(context)"))
        } catch {
            checks.append(
                DoctorCheck(
                    name: "embedding model", passed: false, detail: String(describing: error),
                    fix: served.first.map { "use --model \($0)" }))
        }
        return checks
    }

    /// A chat model: served, and answering (a one-token answer, streamed as any answer is).
    static func chatCheck(_ chat: any ChatModel) async -> DoctorCheck {
        let label = chat.name.isEmpty ? "the server's model" : "'\(chat.name)'"
        do {
            let info = try await chat.inspect(contextWindow: nil, maxContext: 8192)
            let request = ChatModelRequest(
                model: info, messages: [PromptMessage(role: .user, content: "Say OK.")], temperature: 0,
                maxTokens: 4, limitedByUser: true)
            var answered = false
            for try await event in chat.stream(request) {
                if case .token = event { answered = true }
            }
            return DoctorCheck(
                name: "chat model", passed: answered,
                detail: answered
                    ? "\(chat.provider) '\(info.name)' answers, context \(info.contextWindow) tokens"
                    : "\(chat.provider) '\(info.name)' returned an empty answer",
                fix: answered ? nil : "try another --chat-model")
        } catch {
            return DoctorCheck(
                name: "chat model", passed: false, detail: "\(chat.provider) \(label): \(String(describing: error))")
        }
    }
}
