import Foundation
import Ollama

/// Pulls a model, printing the percentage of each layer as it grows.
func pullWithProgress(_ client: OllamaClient, model: String) async throws {
    var lastPercent = -1
    for try await update in client.pull(model) {
        if let fraction = update.fraction {
            let percent = Int(fraction * 100)
            if percent != lastPercent { print("\(update.status): \(percent)%") }
            lastPercent = percent
        } else {
            print(update.status)
        }
    }
}
