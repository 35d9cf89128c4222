import Foundation
import Ollama
import Synchronization

/// Ollama clients made once per process and shared: each owns one `URLSession` (its connections, its TLS state), so a
/// front end that answers many requests (`trove serve`, a chat's turns) reuses one instead of building one per
/// request. Copies of a client share its session.
package enum SharedClients {
    private struct Key: Hashable {
        var baseURL: String
        var requestTimeout: Duration
        var apiKey: String?
    }

    private static let clients = Mutex<[Key: OllamaClient]>([:])

    /// The process's client for these settings, made on first use.
    package static func ollama(baseURL: URL, requestTimeout: Duration, apiKey: String?) -> OllamaClient {
        let key = Key(baseURL: baseURL.absoluteString, requestTimeout: requestTimeout, apiKey: apiKey)
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            let client = OllamaClient(baseURL: baseURL, requestTimeout: requestTimeout, apiKey: apiKey)
            clients[key] = client
            return client
        }
    }
}
