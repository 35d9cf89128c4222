@preconcurrency import Glibc
import Foundation
import TroveKit
import TroveSystem

extension SearchServer {
    /// The socket for the index at `location`: beside a SQLite file; for a PostgreSQL URL, which has no folder of
    /// its own, `/tmp/trove-UID-HASH.sock` (HASH of the URL without its password: one server per user and index,
    /// and the owner check below refuses another user's socket of that name).
    package static func socketPath(for location: IndexLocation) -> String {
        guard case .postgres = location else { return location.text + ".sock" }
        let hash = FNV1a.hash(location.description.utf8)
        return "/tmp/trove-\(getuid())-\(String(hash, radix: 16)).sock"
    }
}

/// The socket calls both ends make: addresses, connect, the peer's uid, timeouts, sending and receiving a line.
enum Socket {
    /// `body` called with `path` as a Unix socket address.
    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(107)) + [0]
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Connects `descriptor` to the socket at `path`.
    static func connect(_ descriptor: Int32, path: String) -> Bool {
        descriptor >= 0 && withAddress(path) { Glibc.connect(descriptor, $0, $1) } == 0
    }

    /// The uid of the process at the other end of a Unix socket (`SO_PEERCRED`), nil when the kernel won't say.
    static func peerUID(_ descriptor: Int32) -> uid_t? {
        // `struct ucred` (pid, uid, gid: three 32-bit fields) is hidden behind _GNU_SOURCE in Glibc's module.
        var credentials = [UInt32](repeating: 0, count: 3)
        var length = socklen_t(12)
        let got = credentials.withUnsafeMutableBytes {
            getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length)
        }
        guard got == 0, length == 12 else { return nil }
        return credentials[1]
    }

    /// Bounds each `recv` and `send` on `descriptor`.
    static func setTimeouts(_ descriptor: Int32, receive: Duration, send: Duration) {
        for (option, duration) in [(SO_RCVTIMEO, receive), (SO_SNDTIMEO, send)] {
            let parts = duration.components
            var value = timeval(tv_sec: Int(parts.seconds), tv_usec: Int(parts.attoseconds / 1_000_000_000_000))
            setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// The bytes of `data` the socket takes now, without blocking (0 when it takes none or fails).
    static func sendWithoutWaiting(_ descriptor: Int32, _ data: Data) -> Int {
        data.withUnsafeBytes { FileDescriptor(descriptor).send(all: $0, flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// All of `data`, waiting while the socket is full (up to its send timeout); false when it failed.
    static func send(_ descriptor: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { FileDescriptor(descriptor).send(all: $0, flags: Int32(MSG_NOSIGNAL)) == $0.count }
    }

    /// What `receiveLine` got.
    enum Received {
        case line(Data)
        case tooLong
        case failed
    }

    /// The first line (`LineFramer`), or everything up to the end of the stream, at most `limit` bytes, within
    /// `within` in all (each `recv` is also bounded by the socket's receive timeout), so a client trickling bytes is
    /// cut off too.
    static func receiveLine(_ descriptor: Int32, limit: Int, within: Duration) -> Received {
        let deadline = ContinuousClock.now + within
        var framer = LineFramer(limit: limit)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = buffer.withUnsafeMutableBytes { FileDescriptor(descriptor).receive(into: $0) }
            guard got >= 0 else { return .failed }
            let pieces = got == 0 ? framer.finish() : framer.feed(Data(buffer[..<got]))
            switch pieces.first {
            case .line(let line): return .line(line)
            case .oversized: return .tooLong
            case nil: if got == 0 || ContinuousClock.now > deadline { return .failed }
            }
        }
    }
}
