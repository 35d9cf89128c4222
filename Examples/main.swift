import Foundation
import Ollama

// Examples for the README's "Using the Ollama module from Swift"; built with the package so they keep compiling.
// Run: swift run ollama-examples embed | chat "question" | pull NAME
let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
do {
    let client = OllamaClient(
        baseURL: try OllamaHost.resolve(flag: nil, environment: environment),
        apiKey: environment["OLLAMA_API_KEY"])
    switch arguments.first {
    case "embed": try await embedBatch(client)
    case "chat":
        let model = environment["EXAMPLE_CHAT_MODEL"] ?? "llama3.2"
        try await streamChat(client, model: model, question: arguments.dropFirst().joined(separator: " "))
    case "pull": try await pullWithProgress(client, model: arguments.dropFirst().first ?? "nomic-embed-text")
    default:
        print("usage: ollama-examples embed | chat QUESTION | pull NAME")
        exit(64)
    }
} catch {
    print("error: \(error)")
    exit((error as? OllamaError)?.kind == .unreachable ? 69 : 1)
}
