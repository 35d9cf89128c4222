@preconcurrency import Glibc
import Dispatch
import Synchronization
import TroveKit

/// Ctrl-C and SIGTERM. While a command that can stop cleanly runs (`trove index`, an answer being written), the
/// first signal asks it to stop — finish the current transaction, or end the answer — and a second one, or any
/// signal while nothing listens, exits 130 at once (safe: SQLite rolls back an unfinished transaction on the next
/// open).
package enum Interrupts {
    /// The process-wide stop request that `trove index` watches.
    static let stop = StopSignal()
    /// What the next signal does instead of exiting; used up by that signal.
    private static let handler = Mutex<(@Sendable () -> Void)?>(nil)
    /// The installed sources; kept alive for the life of the process, written once by `install`.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Routes SIGINT and SIGTERM through dispatch sources instead of the default (kill the process at once).
    /// Call it first thing in `main`, before any thread starts.
    package static func install() {
        // Linux's libdispatch reads signals through a signalfd, which sees only signals that every thread blocks:
        // a thread that leaves them unblocked takes a SIGINT itself and, with SIG_IGN, drops it (a lost Ctrl-C
        // under load). Blocked here, before other threads start, every later thread inherits the mask.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            // The handler must be @Sendable: dispatch calls it on its own queue, and a non-Sendable closure
            // traps at runtime under Swift 6.
            source.setEventHandler { @Sendable in
                let next = handler.withLock { current -> (@Sendable () -> Void)? in
                    defer { current = nil }
                    return current
                }
                guard let next else { _exit(130) }
                next()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Marks the start of a command that watches `stop`; returns it.
    static func listen() -> StopSignal {
        onNext {
            stop.stop()
            FileStream.standardError.write(
                "\r\u{1B}[Kstopping after the current batch… (press Ctrl-C again to quit at once)\n")
        }
        return stop
    }

    /// Marks the end of that command.
    static func stopListening() { clear() }

    /// The next Ctrl-C runs `action` (e.g. cancels the answer being written) instead of exiting.
    static func onNext(_ action: @escaping @Sendable () -> Void) {
        handler.withLock { $0 = action }
    }

    /// Ctrl-C exits again.
    static func clear() {
        handler.withLock { $0 = nil }
    }
}
