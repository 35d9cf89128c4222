import Foundation

/// Every failure of the Ollama client.
public struct OllamaError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, coarse enough to choose an exit code or a retry.
    public enum Kind: Sendable, Equatable {
        /// Nothing answers at the base URL (refused, unknown host, connection lost).
        case unreachable
        /// The server did not answer within `requestTimeout`.
        case timeout
        /// The model is not pulled (HTTP 404 naming the model).
        case modelMissing
        /// The model exists but cannot do what was asked, e.g. a chat model asked for embeddings.
        case notCapable
        /// Any other 4xx: the server refused the request.
        case badRequest
        /// HTTP 503: the server's queue is full; retrying later may work.
        case serverBusy
        /// Any other 5xx: the server failed, e.g. its runner crashed.
        case serverError
        /// The reply was not JSON, or not JSON of the expected shape.
        case decoding
        /// The reply decoded but broke a promise: vector count or length.
        case unexpectedResponse
        /// The Swift task was cancelled.
        case cancelled
    }

    /// The coarse category of the failure.
    public var kind: Kind
    /// A lowercase sentence a user can act on.
    public var message: String
    /// The path that failed, e.g. `/api/embed`.
    public var endpoint: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// Ollama's own `{"error": ...}` text, kept verbatim.
    public var serverMessage: String?

    /// Builds an error from its parts; prefer the static factories, which word the message.
    public init(kind: Kind, message: String, endpoint: String, status: Int? = nil, serverMessage: String? = nil) {
        self.kind = kind
        self.message = message
        self.endpoint = endpoint
        self.status = status
        self.serverMessage = serverMessage
    }

    /// The message, which is what the CLI prints.
    public var description: String { message }
}

extension OllamaError {
    /// `model` cannot make embeddings; callers that learn capabilities from `/api/show` use this for the same sentence.
    public static func notCapable(
        model: String, endpoint: String = "/api/embed", status: Int? = nil, serverMessage: String? = nil
    ) -> OllamaError {
        OllamaError(
            kind: .notCapable,
            message:
                "model '\(model)' cannot make embeddings — choose an embedding model, e.g. ollama pull nomic-embed-text",
            endpoint: endpoint, status: status, serverMessage: serverMessage)
    }

    /// `model` is not pulled on the server.
    public static func modelMissing(
        model: String, endpoint: String = "/api/embed", status: Int? = 404, serverMessage: String? = nil
    ) -> OllamaError {
        OllamaError(
            kind: .modelMissing, message: "model '\(model)' is not pulled — run: ollama pull \(model)",
            endpoint: endpoint, status: status, serverMessage: serverMessage)
    }

    /// Nothing listens at `baseURL`.
    public static func unreachable(baseURL: String, endpoint: String) -> OllamaError {
        OllamaError(
            kind: .unreachable, message: "cannot reach Ollama at \(baseURL) — is it running? (ollama serve)",
            endpoint: endpoint)
    }

    /// The server did not answer within `seconds`.
    public static func timeout(baseURL: String, endpoint: String, seconds: Double) -> OllamaError {
        OllamaError(
            kind: .timeout,
            message: "Ollama at \(baseURL) did not answer within \(formatSeconds(seconds)) s"
                + " — is it overloaded? retry, or raise the timeout",
            endpoint: endpoint)
    }

    /// The Swift task that made the request was cancelled.
    public static func cancelled(endpoint: String) -> OllamaError {
        OllamaError(kind: .cancelled, message: "the request to \(endpoint) was cancelled", endpoint: endpoint)
    }

    /// An `{"error": …}` line in the middle of a 200 stream: the model failed after it started answering.
    static func midStream(message: String, endpoint: String, model: String?) -> OllamaError {
        let lower = message.lowercased()
        if let model, lower.contains("model"), lower.contains("not found") {
            return .modelMissing(model: model, endpoint: endpoint, status: 200, serverMessage: message)
        }
        if let model, endpoint == "/api/pull", lower.contains("file does not exist") || lower.contains("manifest") {
            return OllamaError(
                kind: .modelMissing,
                message: "ollama could not pull '\(model)': \(message) — check the name at https://ollama.com/library",
                endpoint: endpoint, status: 200, serverMessage: message)
        }
        return OllamaError(
            kind: .serverError, message: "ollama failed in the middle of \(endpoint): \(message)",
            endpoint: endpoint, status: 200, serverMessage: message)
    }

    /// Maps a non-2xx HTTP reply to the error a user can act on; `model` is the model the request named, if any.
    static func fromHTTP(status: Int, body: [UInt8], endpoint: String, model: String?) -> OllamaError {
        let server = serverText(body)
        let lower = server.lowercased()
        if let model, status == 404, lower.contains("model"), lower.contains("not found") {
            return .modelMissing(model: model, endpoint: endpoint, status: status, serverMessage: server)
        }
        if let model, status == 400 || status == 500, lower.contains("does not support embed") {
            return .notCapable(model: model, endpoint: endpoint, status: status, serverMessage: server)
        }
        if let model, status == 400 || status == 500, lower.contains("does not support") {
            let what = endpoint == "/api/generate" ? "generate text" : "chat"
            let sentence =
                lower.contains("does not support chat") || lower.contains("does not support generate")
                ? "model '\(model)' cannot \(what) — choose a chat model, e.g. ollama pull llama3.2"
                : "model '\(model)' cannot do what was asked: \(server) — leave that option out or choose another model"
            return OllamaError(
                kind: .notCapable, message: sentence, endpoint: endpoint, status: status, serverMessage: server)
        }
        switch status {
        case 503:
            return OllamaError(
                kind: .serverBusy,
                message: "ollama is too busy to answer \(endpoint) (HTTP 503): \(server) — retry in a moment",
                endpoint: endpoint, status: status, serverMessage: server)
        case 404 where server == "404 page not found":
            return OllamaError(
                kind: .badRequest,
                message: "ollama rejected the request to \(endpoint): \(server) — this Ollama may be too old for it;"
                    + " upgrade it",
                endpoint: endpoint, status: status, serverMessage: server)
        case 400..<500:
            return OllamaError(
                kind: .badRequest, message: "ollama rejected the request to \(endpoint): \(server)",
                endpoint: endpoint, status: status, serverMessage: server)
        case 500..<600:
            return OllamaError(
                kind: .serverError, message: "ollama failed on \(endpoint) (HTTP \(status)): \(server)",
                endpoint: endpoint, status: status, serverMessage: server)
        default:
            return OllamaError(
                kind: .unexpectedResponse,
                message: "ollama answered \(endpoint) with unexpected HTTP status \(status): \(server)",
                endpoint: endpoint, status: status, serverMessage: server)
        }
    }

    /// The reply to `endpoint` was not JSON at all.
    static func notJSON(endpoint: String, body: [UInt8]) -> OllamaError {
        OllamaError(
            kind: .decoding,
            message: "ollama sent a reply to \(endpoint) that is not valid JSON: \(excerpt(body))",
            endpoint: endpoint, status: 200)
    }

    /// The reply to `endpoint` was JSON of the wrong shape.
    static func wrongShape(endpoint: String, detail: String, body: [UInt8]) -> OllamaError {
        OllamaError(
            kind: .decoding,
            message: "ollama sent a reply to \(endpoint) that this client cannot read (\(detail)): \(excerpt(body))",
            endpoint: endpoint, status: 200)
    }

    /// Ollama's `{"error": "..."}` text, else the body itself, shortened.
    static func serverText(_ body: [UInt8]) -> String {
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let text = object["error"] as? String
        {
            return text
        }
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "(empty reply)" : excerpt(Array(text.utf8))
    }

    /// The first 100 characters of `body` on one line, with `…` when cut.
    static func excerpt(_ body: [UInt8]) -> String {
        let text = String(decoding: body, as: UTF8.self)
            .replacingOccurrences(of: "\r", with: " ")
            .replacingOccurrences(of: "\n", with: " ")
        if text.isEmpty { return "(empty reply)" }
        return text.count > 100 ? String(text.prefix(100)) + "…" : text
    }

    /// `300` for whole seconds, `0.25` otherwise.
    static func formatSeconds(_ seconds: Double) -> String {
        if seconds == seconds.rounded(), abs(seconds) < 1e15 { return String(Int(seconds)) }
        var text = String(format: "%.3f", seconds)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
