@preconcurrency import Glibc
import TroveSystem

/// Linux inotify through Glibc: one descriptor, watches added per folder, events read in a blocking `poll` that also
/// listens to a wake-up pipe (so a stop request ends the wait without any timer). Used by one thread only.
final class Inotify {
    /// One event as the kernel reported it; `name` is empty for events on the watched folder itself.
    struct Event {
        var descriptor: Int32
        var mask: UInt32
        var cookie: UInt32
        var name: String

        func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }
    }

    /// What a folder watch listens for. IN_MODIFY besides IN_CLOSE_WRITE: a writer that keeps its file open (or
    /// maps it) never closes it; the debounce folds the repeats. IN_DONT_FOLLOW and IN_ONLYDIR: the crawl follows
    /// no folder links, neither does the watch. IN_EXCL_UNLINK: a deleted file held open reports nothing more.
    static let folderMask: UInt32 =
        UInt32(
            bitPattern: IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO
                | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

    private let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init() throws {
        descriptor = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard descriptor >= 0 else {
            let code = errno
            throw WatchError(
                code: .inotify,
                message: code == EMFILE
                    ? "cannot start watching: fs.inotify.max_user_instances is used up — close other watchers, or "
                        + "raise it: sudo sysctl fs.inotify.max_user_instances=1024"
                    : "cannot start watching: inotify_init1 failed (\(String(cString: strerror(code))))")
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            close(descriptor)
            throw WatchError(code: .inotify, message: "cannot start watching: pipe failed")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        close(descriptor)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Watches the folder at `path`; the watch descriptor, or the errno (ENOSPC: max_user_watches used up).
    func add(_ path: String) -> Result<Int32, Errno> {
        let watch = inotify_add_watch(descriptor, path, Self.folderMask)
        return watch >= 0 ? .success(watch) : .failure(Errno(errno))
    }

    /// Stops a watch (the kernel then reports IN_IGNORED for it).
    func remove(_ watch: Int32) { _ = inotify_rm_watch(descriptor, watch) }

    /// Makes a `wait` in progress (or the next one) return at once. Safe from any thread.
    static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    /// The write end of the wake-up pipe, for `wake(_:)` from another thread.
    var wakeDescriptor: Int32 { wakeWrite }

    /// Blocks until events arrive, `timeout` passes (nil: no timeout) or `wake` is called; returns what was read.
    func wait(timeout: Duration?) -> (events: [Event], woken: Bool) {
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        let milliseconds: Int32 =
            timeout.map { duration in
                let parts = duration.components
                let ms = parts.seconds * 1000 + (parts.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                return Int32(clamping: max(0, ms))
            } ?? -1
        let ready = poll(&fds, 2, milliseconds)
        guard ready > 0 else { return ([], false) }
        var woken = false
        if fds[1].revents != 0 {
            var sink = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &sink, sink.count) > 0 {}
            woken = true
        }
        return (fds[0].revents != 0 ? readAll() : [], woken)
    }

    /// Reads every queued event (the descriptor is non-blocking).
    private func readAll() -> [Event] {
        var events: [Event] = []
        while true {
            let got = buffer.withUnsafeMutableBytes { FileDescriptor(descriptor).read(into: $0) }
            guard got > 0 else { break }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= got {
                    let base = raw.baseAddress! + offset
                    let watch = base.loadUnaligned(fromByteOffset: 0, as: Int32.self)
                    let mask = base.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
                    let cookie = base.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
                    let length = Int(base.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                    var name = ""
                    if length > 0 {
                        let bytes = UnsafeRawBufferPointer(start: base + header, count: length)
                        name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    events.append(Event(descriptor: watch, mask: mask, cookie: cookie, name: name))
                    offset += header + length
                }
            }
        }
        return events
    }
}

/// An errno value, for `Result`.
struct Errno: Error, Equatable {
    var code: Int32
    init(_ code: Int32) { self.code = code }
}
