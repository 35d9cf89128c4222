@preconcurrency import Glibc
import Foundation
import Synchronization
import TroveKit
import TroveOutput

/// The server's half: `trove serve` listens on the socket, reads requests on threads and answers them in order.
extension SearchServer {
    /// One request read and checked, waiting for its answer.
    private struct Job: Sendable {
        var connection: Int32
        var request: SearchRequest
        var style: OutputStyle?
    }

    /// Listens on the index's socket until `stop` is raised (SIGINT/SIGTERM in `trove serve`), then removes the
    /// socket and returns. Requests from several clients are read at once; `answer` runs for one at a time, in
    /// arrival order. A stale socket file (no server behind it) is replaced; a live one is an error.
    /// `admission` is the settings the server's index uses (`Admission.used(by:)`): a client whose own differ there is
    /// refused, never answered. `answer` gets the client's `OutputStyle` when it sent one.
    package static func serve(
        location: IndexLocation, admission: Admission, limits: Limits = Limits(), stop: StopSignal? = nil,
        ready: () -> Void, answer: (SearchRequest, OutputStyle?) async -> Response
    ) async throws {
        let path = socketPath(for: location)
        guard path.utf8.count < 108 else {
            throw ServeError("socket path \(path) is too long for a Unix socket — move the index to a shorter path")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        if Socket.connect(probe, path: path) {
            close(probe)
            throw ServeError("a trove serve is already answering for \(location.text)")
        }
        close(probe)
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFSOCK else {
                throw ServeError("\(path) exists and is not a socket — remove it, then start trove serve again")
            }
            unlink(path)
        }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw ServeError("cannot create a socket: \(String(cString: strerror(errno)))") }
        // Only the owner may connect: searches return the index's private text.
        let previous = umask(0o077)
        let bound = Socket.withAddress(path) { bind(listener, $0, $1) } == 0
        umask(previous)
        guard bound, listen(listener, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw ServeError("cannot listen on \(path): \(reason)")
        }
        defer { unlink(path) }
        ready()

        let (jobs, queue) = AsyncStream<Job>.makeStream()
        let gate = ConnectionGate(limit: limits.connections)
        let stopper = stop ?? StopSignal()
        let acceptor = Thread {
            acceptLoop(listener, admission: admission, limits: limits, gate: gate, stop: stopper, queue: queue)
        }
        acceptor.start()
        for await job in jobs {
            var response = await answer(job.request, job.style)
            var body = (try? JSONEncoder().encode(response)) ?? Data()
            if body.count + 1 > limits.replyBytes {
                response = Response(
                    error: "the answer is over \(limits.replyBytes / 1_048_576) MiB — ask for fewer results",
                    code: Refusal.tooLarge.rawValue)
                body = (try? JSONEncoder().encode(response)) ?? Data()
            }
            let reply = body + Data([0x0A])
            let connection = job.connection
            // Most replies fit the socket's buffer: sent at once, without a thread (~0.2 ms to start one).
            let sent = Socket.sendWithoutWaiting(connection, reply)
            guard sent < reply.count else {
                close(connection)
                gate.leave()
                continue
            }
            Thread.detachNewThread {
                _ = Socket.send(connection, reply.dropFirst(sent))
                close(connection)
                gate.leave()
            }
        }
    }

    /// Accepts until `stop`, handing each connection to a reader thread; finishes `queue` and closes `listener`.
    private static func acceptLoop(
        _ listener: Int32, admission: Admission, limits: Limits, gate: ConnectionGate, stop: StopSignal,
        queue: AsyncStream<Job>.Continuation
    ) {
        defer {
            close(listener)
            queue.finish()
        }
        while !stop.isStopped {
            // A short poll, so a raised stop is seen within a quarter second without a signal reaching this thread.
            var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 250)
            if ready < 0, errno != EINTR { return }
            guard ready > 0 else { continue }
            let connection = accept(listener, nil, nil)
            if connection < 0 { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            Socket.setTimeouts(connection, receive: limits.ioTimeout, send: limits.ioTimeout)
            guard gate.enter() else {
                Thread.detachNewThread {
                    _ = Socket.send(connection, reply(Response(error: "trove serve is busy", code: Refusal.busy.rawValue)))
                    close(connection)
                }
                continue
            }
            Thread.detachNewThread {
                // The 0600 mode already keeps other users out; the peer's uid is checked too, as the client does.
                if let peer = Socket.peerUID(connection), peer != getuid() {
                    close(connection)
                    gate.leave()
                    return
                }
                switch read(connection, admission: admission, limits: limits) {
                case .success(let envelope):
                    queue.yield(Job(connection: connection, request: envelope.request, style: envelope.style))
                case .failure(let refusal):
                    _ = Socket.send(connection, reply(refusal))
                    close(connection)
                    gate.leave()
                }
            }
        }
    }

    /// The connection's request, decoded and validated, or the refusal to send back.
    private static func read(_ connection: Int32, admission: Admission, limits: Limits) -> Result<Envelope, Refused> {
        func refuse(_ code: Refusal, _ message: String) -> Result<Envelope, Refused> {
            .failure(Refused(response: Response(error: message, code: code.rawValue)))
        }
        let line: Data
        switch Socket.receiveLine(connection, limit: limits.requestBytes, within: limits.ioTimeout) {
        case .line(let data): line = data
        case .tooLong: return refuse(.badRequest, "request is over \(limits.requestBytes) bytes")
        case .failed: return refuse(.badRequest, "no request within \(limits.ioTimeout)")
        }
        return decode(line, admission: admission)
    }

    private static func reply(_ refused: Refused) -> Data { reply(refused.response) }

    private static func reply(_ response: Response) -> Data {
        ((try? JSONEncoder().encode(response)) ?? Data()) + Data([0x0A])
    }
}

/// Counts connections being read or written, up to a limit.
private final class ConnectionGate: Sendable {
    private let count = Mutex(0)
    private let limit: Int
    init(limit: Int) { self.limit = limit }
    /// Takes a place; false when all are taken.
    func enter() -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }
    func leave() { count.withLock { $0 -= 1 } }
}
