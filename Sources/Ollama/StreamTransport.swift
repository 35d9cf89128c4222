import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the stream delegate reports.
enum StreamEvent: Sendable {
    /// One complete NDJSON line of a 2xx reply.
    case line([UInt8])
    /// The server answered with a non-2xx status; the caller maps it, knowing the model.
    case rejected(status: Int, body: [UInt8])
    /// The reply ended: cleanly (nil) or with the error a user should see.
    case completed(OllamaError?)
}

/// Receives one streaming reply through URLSession's delegate callbacks (Linux has no `bytes(for:)`), frames its
/// lines, and enforces an exact idle timeout that restarts with every chunk.
final class NDJSONStreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Callbacks run on the session's serial delegate queue; `lock` guards what the timer and `end` touch too.
    private let lock = NSLock()
    private let endpoint: String
    private let baseURL: String
    private let idleTimeout: TimeInterval
    private let deliver: @Sendable (StreamEvent) -> Void
    private var framer = NDJSONFramer()
    private var errorBody: [UInt8] = []
    private var receivedAny = false
    private var endedBy: OllamaError.Kind?
    private var lastActivity = DispatchTime.now()
    private var completed = false
    private var task: URLSessionTask?

    init(
        endpoint: String, baseURL: String, idleTimeout: TimeInterval,
        deliver: @escaping @Sendable (StreamEvent) -> Void
    ) {
        self.endpoint = endpoint
        self.baseURL = baseURL
        self.idleTimeout = idleTimeout
        self.deliver = deliver
    }

    /// Starts `task` with the idle timer running.
    func start(_ task: URLSessionTask) {
        lock.lock()
        self.task = task
        let ended = endedBy != nil
        lastActivity = .now()
        lock.unlock()
        if ended {
            task.cancel()
        } else {
            if idleTimeout.isFinite && idleTimeout > 0 { scheduleIdleCheck(after: idleTimeout) }
            task.resume()
        }
    }

    /// Stops the reply for `reason` (`.timeout` or `.cancelled`); the first reason wins.
    func end(_ reason: OllamaError.Kind) {
        lock.lock()
        if endedBy == nil && !completed { endedBy = reason }
        let task = self.task
        lock.unlock()
        task?.cancel()
    }

    /// One timer per stream, not one per chunk: when it fires early it sleeps again for the rest of the idle time.
    private func scheduleIdleCheck(after seconds: TimeInterval) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in self?.checkIdle() }
    }

    private func checkIdle() {
        lock.lock()
        let over = endedBy != nil || completed
        let idle = Double(DispatchTime.now().uptimeNanoseconds &- lastActivity.uptimeNanoseconds) / 1e9
        lock.unlock()
        if over { return }
        if idle >= idleTimeout { end(.timeout) } else { scheduleIdleCheck(after: idleTimeout - idle) }
    }

    private func touch() {
        lock.lock()
        lastActivity = .now()
        lock.unlock()
    }

    private func status(of task: URLSessionTask) -> Int {
        (task.response as? HTTPURLResponse)?.statusCode ?? 0
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        touch()
        receivedAny = true
        guard (200..<300).contains(status(of: dataTask)) else {
            errorBody.append(contentsOf: data)
            return
        }
        for line in framer.append(data) { deliver(.line(line)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let endedBy = self.endedBy
        completed = true
        lock.unlock()
        switch endedBy {
        case .timeout?:
            deliver(
                .completed(
                    OllamaError(
                        kind: .timeout,
                        message: "Ollama at \(baseURL) sent nothing on \(endpoint) for"
                            + " \(OllamaError.formatSeconds(idleTimeout)) s — is it overloaded? retry, or raise the"
                            + " stream idle timeout",
                        endpoint: endpoint)))
            return
        case .cancelled?:
            deliver(.completed(.cancelled(endpoint: endpoint)))
            return
        default: break
        }
        if let error {
            let code = (error as? URLError)?.code.rawValue ?? (error as NSError).code
            if receivedAny && code != NSURLErrorCancelled && code != NSURLErrorTimedOut {
                deliver(
                    .completed(
                        OllamaError(
                            kind: .unreachable,
                            message: "the connection to Ollama at \(baseURL) broke in the middle of \(endpoint)"
                                + " — retry (is Ollama still running?)",
                            endpoint: endpoint, status: status(of: task))))
            } else {
                deliver(
                    .completed(
                        HTTPTransport.transportError(
                            error, endpoint: endpoint, baseURL: baseURL, timeout: idleTimeout)))
            }
            return
        }
        let status = status(of: task)
        guard (200..<300).contains(status) else {
            deliver(.rejected(status: status, body: errorBody))
            return
        }
        if let last = framer.finish() { deliver(.line(last)) }
        deliver(.completed(nil))
    }
}

/// Whether a streamed value is the last one of its reply.
protocol StreamTerminal {
    /// True on the line that ends the reply (`done`, or a `success` status).
    var endsStream: Bool { get }
}

extension OllamaClient.ChatResponse: StreamTerminal {
    var endsStream: Bool { done }
}

extension OllamaClient.GenerateResponse: StreamTerminal {
    var endsStream: Bool { done }
}

extension OllamaClient.ProgressUpdate: StreamTerminal {
    var endsStream: Bool { isSuccess }
}

extension OllamaClient {
    /// Sends `request` and streams its NDJSON reply, one decoded value per line, until a value ends it.
    ///
    /// Each stream has its own URLSession (its delegate is the stream's); ending the stream early — the consumer
    /// breaking out of its loop, or its task being cancelled — cancels the HTTP request.
    func stream<Element: Decodable & Sendable & StreamTerminal>(
        _ request: URLRequest, endpoint: String, model: String?, as: Element.Type = Element.self
    ) -> AsyncThrowingStream<Element, any Error> {
        let base = baseText
        let idle = streamIdleTimeout.timeInterval
        let configuration = transport.makeConfiguration(idleTimeout: idle)
        return AsyncThrowingStream { continuation in
            let finished = Finished()
            let delegate = NDJSONStreamDelegate(endpoint: endpoint, baseURL: base, idleTimeout: idle) { event in
                guard !finished.value else { return }
                switch event {
                case .line(let line):
                    if let message = Self.streamedError(line) {
                        finished.set()
                        continuation.finish(
                            throwing: OllamaError.midStream(
                                message: message, endpoint: endpoint, model: model))
                        return
                    }
                    do {
                        let value = try JSONDecoder().decode(Element.self, from: Data(line))
                        continuation.yield(value)
                        if value.endsStream {
                            finished.set()
                            continuation.finish()
                        }
                    } catch let error as DecodingError {
                        finished.set()
                        if (try? JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])) == nil {
                            continuation.finish(throwing: OllamaError.notJSON(endpoint: endpoint, body: line))
                        } else {
                            continuation.finish(
                                throwing: OllamaError.wrongShape(
                                    endpoint: endpoint, detail: Self.describe(error), body: line))
                        }
                    } catch {
                        finished.set()
                        continuation.finish(throwing: error)
                    }
                case .rejected(let status, let body):
                    finished.set()
                    continuation.finish(
                        throwing: OllamaError.fromHTTP(status: status, body: body, endpoint: endpoint, model: model))
                case .completed(let error?):
                    finished.set()
                    continuation.finish(throwing: error)
                case .completed(nil):
                    finished.set()
                    continuation.finish(
                        throwing: OllamaError(
                            kind: .unexpectedResponse,
                            message: "ollama ended the reply to \(endpoint) before it was done — retry",
                            endpoint: endpoint, status: 200))
                }
            }
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
            let task = session.dataTask(with: request)
            continuation.onTermination = { termination in
                switch termination {
                case .finished(nil): break
                // Stopped by the consumer, or failed: what is left of the reply is not worth reading.
                default: delegate.end(.cancelled)
                }
                // Breaks the session → delegate reference cycle once the task is over.
                session.finishTasksAndInvalidate()
            }
            delegate.start(task)
        }
    }

    /// The text of an `{"error": "…"}` line, which Ollama sends mid-stream with status 200.
    static func streamedError(_ line: [UInt8]) -> String? {
        // Ollama writes `{"error":…}` compactly, error first; the prefix test keeps big replies from being parsed twice.
        guard line.starts(with: Array(#"{"error""#.utf8)) || line.starts(with: Array(#"{ "error""#.utf8)),
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let message = object["error"], !(message is NSNull)
        else { return nil }
        return (message as? String) ?? String(describing: message)
    }
}

/// A flag set once, read from the delegate queue and the consumer.
final class Finished: @unchecked Sendable {  // `flag` is only touched under `lock`
    private let lock = NSLock()
    private var flag = false
    var value: Bool {
        lock.lock()
        defer { lock.unlock() }
        return flag
    }
    func set() {
        lock.lock()
        flag = true
        lock.unlock()
    }
}
