import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession one client owns; invalidated when the last copy of the client goes away.
final class HTTPTransport: Sendable {
    /// A session of our own, so that its connection limit and timeout do not leak into `URLSession.shared`. Made on
    /// the first request: a process that never calls the server (`trove search` with the built-in model) does not pay
    /// the ~2 ms of setting one up.
    var session: URLSession {
        made.withLock { made in
            if let made { return made }
            let session = URLSession(configuration: Self.configuration(idleTimeout: idleTimeout, template: template))
            made = session
            return session
        }
    }
    private let made = Mutex<URLSession?>(nil)
    private let idleTimeout: TimeInterval

    /// The caller's configuration, if any, that every session starts from.
    let template: ConfigurationTemplate?

    /// A transport whose session will allow 16 parallel connections; `idleTimeout` becomes
    /// `timeoutIntervalForRequest`.
    init(idleTimeout: TimeInterval, template: ConfigurationTemplate? = nil) {
        self.template = template
        self.idleTimeout = idleTimeout
    }

    /// A configuration for a streaming session with the same base settings.
    func makeConfiguration(idleTimeout: TimeInterval) -> URLSessionConfiguration {
        let configuration = Self.configuration(idleTimeout: idleTimeout, template: template)
        configuration.httpMaximumConnectionsPerHost = 1
        return configuration
    }

    private static func configuration(idleTimeout: TimeInterval, template: ConfigurationTemplate?)
        -> URLSessionConfiguration
    {
        let configuration = template?.copy() ?? URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        // URLSession's timer is an idle timer counted in whole seconds; ours (in `send`) is exact, this is a backstop.
        configuration.timeoutIntervalForRequest = max(1, (idleTimeout + 1).rounded(.up))
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        return configuration
    }

    deinit { made.withLock { $0?.finishTasksAndInvalidate() } }

    /// Why a data task ended early, set by the timer or the cancellation handler before they cancel it.
    private final class Flight: @unchecked Sendable {  // every field is read and written under `lock`
        let lock = NSLock()
        var task: URLSessionDataTask?
        var endedBy: OllamaError.Kind?
        var timer: DispatchWorkItem?

        /// Records `reason` (the first one wins) and cancels the task.
        func end(_ reason: OllamaError.Kind) {
            lock.lock()
            if endedBy == nil { endedBy = reason }
            let task = self.task
            lock.unlock()
            task?.cancel()
        }

        /// Starts `task` unless the flight already ended.
        func start(_ task: URLSessionDataTask) {
            lock.lock()
            self.task = task
            let ended = endedBy != nil
            lock.unlock()
            if ended { task.cancel() } else { task.resume() }
        }

        /// Why the flight ended, stopping the timer.
        func finish() -> OllamaError.Kind? {
            lock.lock()
            defer { lock.unlock() }
            timer?.cancel()
            timer = nil
            return endedBy
        }
    }

    /// Sends `request`; returns the status and body, or throws `OllamaError` for transport failures.
    func send(
        _ request: URLRequest, endpoint: String, baseURL: String, timeout: TimeInterval
    ) async throws -> (status: Int, body: [UInt8]) {
        if Task.isCancelled { throw OllamaError.cancelled(endpoint: endpoint) }
        let flight = Flight()
        let timer = DispatchWorkItem { flight.end(.timeout) }
        flight.timer = timer
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(Int, [UInt8]), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    let endedBy = flight.finish()
                    if endedBy == .timeout {
                        continuation.resume(
                            throwing: OllamaError.timeout(baseURL: baseURL, endpoint: endpoint, seconds: timeout))
                        return
                    }
                    if endedBy == .cancelled {
                        continuation.resume(throwing: OllamaError.cancelled(endpoint: endpoint))
                        return
                    }
                    if let error {
                        continuation.resume(
                            throwing: Self.transportError(error, endpoint: endpoint, baseURL: baseURL, timeout: timeout)
                        )
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        continuation.resume(
                            throwing: OllamaError(
                                kind: .unexpectedResponse, message: "ollama sent no HTTP reply to \(endpoint)",
                                endpoint: endpoint))
                        return
                    }
                    continuation.resume(returning: (http.statusCode, data.map { [UInt8]($0) } ?? []))
                }
                if timeout.isFinite && timeout > 0 {
                    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
                }
                flight.start(task)
            }
        } onCancel: {
            flight.end(.cancelled)
        }
    }

    /// Maps a URLSession error to the sentence a user can act on.
    static func transportError(_ error: any Error, endpoint: String, baseURL: String, timeout: TimeInterval)
        -> OllamaError
    {
        let code = (error as? URLError)?.code.rawValue ?? (error as NSError).code
        switch code {
        case NSURLErrorTimedOut:
            return .timeout(baseURL: baseURL, endpoint: endpoint, seconds: timeout)
        case NSURLErrorCancelled:
            return .cancelled(endpoint: endpoint)
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed,
            NSURLErrorNotConnectedToInternet, NSURLErrorNetworkConnectionLost, NSURLErrorBadURL,
            NSURLErrorUnsupportedURL:
            return .unreachable(baseURL: baseURL, endpoint: endpoint)
        default:
            return OllamaError(
                kind: .unreachable,
                message: "the connection to Ollama at \(baseURL) failed on \(endpoint) (URL error \(code))"
                    + " — is it running? (ollama serve)",
                endpoint: endpoint)
        }
    }
}

/// A caller's `URLSessionConfiguration`, copied once and only ever copied again, never changed.
final class ConfigurationTemplate: @unchecked Sendable {  // the wrapped object is private and never mutated
    private let configuration: URLSessionConfiguration

    init(_ configuration: URLSessionConfiguration) {
        self.configuration = configuration.copy() as! URLSessionConfiguration
    }

    /// A fresh copy to modify.
    func copy() -> URLSessionConfiguration { configuration.copy() as! URLSessionConfiguration }
}
