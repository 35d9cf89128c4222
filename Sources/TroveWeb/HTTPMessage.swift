import Foundation

/// One HTTP request as a handler sees it: libmicrohttpd has parsed it, and its body is complete and within the cap.
package struct HTTPRequest: Sendable {
    /// `GET`, `POST`, … as the client spelled it.
    package var method: String
    /// The path, percent-decoded, without the query.
    package var path: String
    /// The query's arguments, decoded, in order; a name may repeat (`ext=md&ext=txt`).
    package var query: [(name: String, value: String)]
    /// Header names lowercased.
    package var headers: [String: String]
    package var body: Data

    /// A request from its parts.
    package init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:],
        body: Data = Data()
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Every value of query argument `name`.
    package func values(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }
}

/// What a handler answers: a status, headers, and a body given whole or written as it is made.
package struct HTTPResponse: Sendable {
    /// A whole body, or one written piece by piece (Server-Sent Events).
    package enum Body: Sendable {
        case bytes(Data)
        case stream(ResponseStream)
    }

    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: Body

    /// A response from its parts.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes(Data())) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A body written while it is sent: the writer appends pieces, the connection's thread sends each as soon as it
/// comes. When the client goes (or the response ends) `onClose` runs once, so the writer can stop its work.
package final class ResponseStream: @unchecked Sendable {  // every field is read and written under `condition`
    private let condition = NSCondition()
    private var pending = Data()
    private var finished = false
    private var closed = false
    private var closeHandler: (@Sendable () -> Void)?
    /// Sent after `heartbeatInterval` without a piece, so a client that went away is noticed (its write fails).
    let heartbeat: Data
    let heartbeatInterval: TimeInterval

    /// A stream that sends `heartbeat` after each `heartbeatInterval` seconds of silence.
    package init(heartbeat: Data, heartbeatInterval: TimeInterval = 1) {
        self.heartbeat = heartbeat
        self.heartbeatInterval = heartbeatInterval
    }

    /// Queues `data` to be sent; ignored once the client is gone.
    package func write(_ data: Data) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, !finished else { return }
        pending.append(data)
        condition.signal()
    }

    /// Ends the body after what is queued.
    package func finish() {
        condition.lock()
        defer { condition.unlock() }
        finished = true
        condition.signal()
    }

    /// Runs `handler` when the response is over, whether it ended or the client left (at once if it already is).
    package func onClose(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        if closed {
            condition.unlock()
            handler()
            return
        }
        closeHandler = handler
        condition.unlock()
    }

    /// True once the response is over.
    package var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Up to `max` bytes to send, waiting for them (a heartbeat after a silence); nil at the end.
    func next(max: Int) -> Data? {
        condition.lock()
        defer { condition.unlock() }
        if pending.isEmpty, !finished {
            _ = condition.wait(until: Date(timeIntervalSinceNow: heartbeatInterval))
        }
        if pending.isEmpty { return finished ? nil : heartbeat.prefix(max) }
        let piece = pending.prefix(max)
        pending.removeFirst(piece.count)
        return Data(piece)
    }

    /// The connection is done with this body.
    func close() {
        condition.lock()
        let handler = closed ? nil : closeHandler
        closed = true
        closeHandler = nil
        condition.signal()
        condition.unlock()
        handler?()
    }
}
