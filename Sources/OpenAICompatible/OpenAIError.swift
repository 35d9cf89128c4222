import Foundation

/// Every failure of an OpenAI-compatible server, as one sentence saying what to do.
public struct OpenAIError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// 401 or 403: the key is missing or wrong.
        case unauthorized
        /// 404 for the model (or the endpoint).
        case notFound
        /// 429, still after the retries.
        case rateLimited
        /// 5xx.
        case server
        /// Another 4xx: the server refused the request.
        case rejected
        /// A body that is not the JSON the endpoint promises, or a vector that fails the checks.
        case badReply
        /// No connection, or it broke.
        case unreachable
        case timeout
        case cancelled
    }

    public var kind: Kind
    public var message: String
    /// The HTTP status, when there was one.
    public var status: Int?

    public init(kind: Kind, message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
    }

    public var description: String { message }

    /// The server's own `{"error": {"message": …}}` text, or the start of a body that is not JSON.
    static func serverText(_ body: [UInt8]) -> String? {
        struct Envelope: Decodable {
            struct Inner: Decodable { var message: String? }
            var error: Inner?
        }
        if let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)), let text = envelope.error?.message {
            return text
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// The error for a non-2xx reply of `endpoint` at `baseURL`; `served` lists `/v1/models` for a 404.
    static func status(
        _ status: Int, body: [UInt8], endpoint: String, baseURL: String, model: String?, served: [String]?
    ) -> OpenAIError {
        let said = serverText(body).map { " (the server said: \($0))" } ?? ""
        switch status {
        case 401, 403:
            return OpenAIError(
                kind: .unauthorized,
                message: "\(baseURL) refused the API key (HTTP \(status))\(said) — set OPENAI_API_KEY, or the "
                    + "config file's api_key_file or api_key_command, to a key this server accepts",
                status: status)
        case 404:
            let list = served.map { $0.isEmpty ? "it lists no models" : "it serves: \($0.joined(separator: ", "))" }
            let what = model.map { "model '\($0)' was not found at \(baseURL)" } ?? "\(baseURL)\(endpoint) was not found"
            return OpenAIError(
                kind: .notFound,
                message: what + (list.map { " — \($0)" } ?? " — is --base-url right (it usually ends in /v1)?") + said,
                status: status)
        case 429:
            return OpenAIError(
                kind: .rateLimited,
                message: "\(baseURL) is rate-limiting requests (HTTP 429, still after retrying)\(said) — wait and run again",
                status: status)
        case 500...599:
            return OpenAIError(
                kind: .server, message: "\(baseURL)\(endpoint) failed with HTTP \(status)\(said)", status: status)
        default:
            return OpenAIError(
                kind: .rejected, message: "\(baseURL)\(endpoint) refused the request with HTTP \(status)\(said)",
                status: status)
        }
    }

    static func badReply(_ baseURL: String, _ endpoint: String, _ why: String) -> OpenAIError {
        OpenAIError(
            kind: .badReply,
            message: "\(baseURL)\(endpoint) sent a reply that is not an OpenAI-compatible one: \(why) — "
                + "is --base-url an OpenAI-compatible server?")
    }

    /// A URLSession failure as a sentence.
    static func transport(_ error: any Error, baseURL: String, endpoint: String, timeout: TimeInterval) -> OpenAIError {
        let code = (error as? URLError)?.code.rawValue ?? (error as NSError).code
        switch code {
        case NSURLErrorTimedOut:
            return OpenAIError(
                kind: .timeout, message: "\(baseURL)\(endpoint) sent nothing for \(Int(timeout)) s — is the server busy?")
        case NSURLErrorCancelled:
            return OpenAIError(kind: .cancelled, message: "the request to \(baseURL)\(endpoint) was cancelled")
        case NSURLErrorNetworkConnectionLost:
            return OpenAIError(
                kind: .unreachable, message: "the connection to \(baseURL) broke during \(endpoint) — did the server stop?")
        default:
            return OpenAIError(
                kind: .unreachable,
                message: "cannot reach an OpenAI-compatible server at \(baseURL) (\(endpoint), URL error \(code)) — "
                    + "is it running, and is --base-url (OPENAI_BASE_URL) right?")
        }
    }
}
