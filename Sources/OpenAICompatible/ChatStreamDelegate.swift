import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Receives one streamed chat reply through URLSession's delegate (Linux has no `bytes(for:)`), frames its events
/// and hands each chunk's content on as it arrives.
final class ChatStreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // URLSession calls the delegate on its serial queue; `lock` guards what `run` reads.
    private let lock = NSLock()
    private let continuation: AsyncThrowingStream<ChatStreamEvent, any Error>.Continuation
    private let baseURL: String
    private var framer = SSEFramer()
    private var status = 0
    private var errorBody: [UInt8] = []
    private var done = false
    private var failure: OpenAIError?
    private var ended: CheckedContinuation<(Int, [UInt8])?, any Error>?

    init(continuation: AsyncThrowingStream<ChatStreamEvent, any Error>.Continuation, baseURL: String) {
        self.continuation = continuation
        self.baseURL = baseURL
    }

    /// Runs `task` to its end: nil after `[DONE]`, the status and body of a non-2xx reply, or the error.
    func run(_ task: URLSessionDataTask) async throws -> (Int, [UInt8])? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { ended in
                lock.lock()
                self.ended = ended
                lock.unlock()
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard (200..<300).contains(status) else {
            if errorBody.count < 65_536 { errorBody.append(contentsOf: data) }
            return
        }
        guard !done, failure == nil else { return }
        for event in framer.push(data) {
            handle(event)
            if done || failure != nil {
                dataTask.cancel()
                break
            }
        }
    }

    private func handle(_ event: SSEEvent) {
        if event.data == "[DONE]" {
            done = true
            return
        }
        let bytes = Data(event.data.utf8)
        if event.event == "error" || event.data.contains("\"error\"") {
            if let text = OpenAIError.serverText([UInt8](bytes)), (try? JSONDecoder().decode(ChatChunk.self, from: bytes))?.choices == nil {
                failure = OpenAIError(kind: .server, message: "\(baseURL)/chat/completions failed mid-answer: \(text)")
                return
            }
        }
        guard let chunk = try? JSONDecoder().decode(ChatChunk.self, from: bytes) else {
            failure = .badReply(baseURL, "/chat/completions", "an event's data is not a chat.completion.chunk")
            return
        }
        for choice in chunk.choices ?? [] {
            if let text = choice.delta?.content, !text.isEmpty { continuation.yield(.content(text)) }
            if let reason = choice.finishReason { continuation.yield(.finished(reason: reason)) }
        }
        if let usage = chunk.usage { continuation.yield(.usage(usage)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let ended = self.ended
        self.ended = nil
        lock.unlock()
        guard let ended else { return }
        if let failure { return ended.resume(throwing: failure) }
        if done { return ended.resume(returning: nil) }
        if status != 0, !(200..<300).contains(status) { return ended.resume(returning: (status, errorBody)) }
        if let error, (error as? URLError)?.code.rawValue ?? (error as NSError).code == NSURLErrorCancelled {
            return ended.resume(throwing: OpenAIError(kind: .cancelled, message: "the answer was cancelled"))
        }
        // The body ended (or broke) before `[DONE]`: what arrived was delivered; say why the rest is missing.
        let why = error.map { " (\(($0 as? URLError)?.code.rawValue ?? ($0 as NSError).code))" } ?? ""
        _ = framer.finish()
        ended.resume(
            throwing: OpenAIError(
                kind: .unreachable,
                message: "the connection to \(baseURL) ended before the answer was complete\(why) — did the server stop?"))
    }
}
