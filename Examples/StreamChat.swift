import Foundation
import Ollama

/// Streams a chat answer token by token; Ctrl-C or `break` cancels the HTTP request.
func streamChat(_ client: OllamaClient, model: String = "llama3.2", question: String) async throws {
    let request = OllamaClient.ChatRequest(
        model: model,
        messages: [.system("Answer in one sentence."), .user(question)],
        options: .init(temperature: 0.2, numCtx: 8192, seed: 42))
    for try await chunk in client.chatStream(request) {
        // Unbuffered, so each token shows as it arrives.
        FileHandle.standardOutput.write(Data(chunk.message.content.utf8))
        if chunk.done {
            let sent = chunk.metrics.promptEvalCount ?? 0
            print("\n[\(chunk.doneReason ?? "?"), \(sent) prompt tokens, \(chunk.metrics.evalCount ?? 0) generated]")
        }
    }
}
