@preconcurrency import Glibc
import Foundation
import Synchronization
import TroveKit
import TroveOutput

/// The client's half: `trove search` asks a running `trove serve` before it searches on its own.
extension SearchServer {
    /// Reported at most once per process: a version mismatch or a refused socket is news once, not per search.
    private static let warned = Mutex(Set<String>())

    /// Asks a running `trove serve`; nil when none answers usefully (no file, refused, a broken or refused answer),
    /// so the caller searches on its own instead. Why a server that exists was not used goes to `warn`, once per
    /// process: a socket owned by someone else, another protocol version, other embedding settings. A server-side
    /// search error is returned as `error` for the caller to judge. With `style` the answer is the client's output
    /// (`output`, `count`) instead of its hits.
    package static func ask(
        _ request: SearchRequest, style: OutputStyle? = nil, location: IndexLocation, admission: Admission,
        limits: Limits = Limits(), warn: (String) -> Void = { _ in }
    ) -> Response? {
        let path = socketPath(for: location)
        func once(_ message: String) -> Response? {
            if warned.withLock({ $0.insert(message).inserted }) { warn(message) }
            return nil
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            return once("ignoring \(path): it is not a socket — remove it")
        }
        // Anyone who can create this file could read the queries and invent the answers.
        guard info.st_uid == getuid() else {
            return once(
                "not using \(path): it belongs to uid \(info.st_uid), not to you (uid \(getuid())) — "
                    + "searching without it; remove it if you did not expect another user's server")
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard Socket.connect(descriptor, path: path) else { return nil }
        if let owner = Socket.peerUID(descriptor), owner != getuid() {
            return once(
                "not using \(path): the server behind it runs as uid \(owner), not as you (uid \(getuid())) — "
                    + "searching without it")
        }
        Socket.setTimeouts(descriptor, receive: limits.answerTimeout, send: limits.ioTimeout)
        let envelope = Envelope(protocol: protocolVersion, admission: admission, request: request, style: style)
        // By hand, not Codable: a one-shot process would pay Codable's first use (Wire.swift).
        guard let body = envelope.json(), Socket.send(descriptor, Data((body + "\n").utf8)) else { return nil }
        shutdown(descriptor, Int32(SHUT_WR))
        guard case .line(let answer) = Socket.receiveLine(descriptor, limit: limits.replyBytes, within: limits.answerTimeout),
            let response = Response(printedAnswer: answer) ?? (try? JSONDecoder().decode(Response.self, from: answer))
        else { return nil }
        guard response.protocol == protocolVersion else {
            let theirs = response.protocol.map { "protocol \($0)" } ?? "an older protocol"
            return once(
                "the trove serve for \(location.text) speaks \(theirs), this trove speaks protocol \(protocolVersion) — "
                    + "searching without it; restart trove serve")
        }
        if response.code == Refusal.embedding.rawValue || response.code == Refusal.protocolMismatch.rawValue {
            return once((response.error ?? "the running trove serve refused this search") + " — searching without it")
        }
        return response
    }
}
