@preconcurrency import Glibc
import Dispatch
import Synchronization
import TroveKit

/// Ctrl-C and SIGTERM. While a command that can stop cleanly runs (`trove index`), the first signal asks it to
/// finish its current transaction and report; a second one, or any signal while nothing listens, exits 130 at once
/// (safe: SQLite rolls back an unfinished transaction on the next open).
public enum Interrupts {
    /// The process-wide stop request that `trove index` watches.
    static let stop = StopSignal()
    /// True while a command is listening to `stop`.
    private static let listening = Atomic<Bool>(false)
    /// Signals received so far.
    private static let received = Atomic<Int>(0)
    /// The installed sources; kept alive for the life of the process, written once by `install`.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Routes SIGINT and SIGTERM through dispatch sources instead of the default (kill the process at once).
    public static func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            // The handler must be @Sendable: dispatch calls it on its own queue, and a non-Sendable closure
            // traps at runtime under Swift 6.
            source.setEventHandler { @Sendable in
                let count = received.add(1, ordering: .relaxed).newValue
                guard listening.load(ordering: .acquiring), count == 1 else { _exit(130) }
                stop.stop()
                FileStream.standardError.write(
                    "\r\u{1B}[Kstopping after the current batch… (press Ctrl-C again to quit at once)\n")
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Marks the start of a command that watches `stop`; returns it.
    static func listen() -> StopSignal {
        listening.store(true, ordering: .releasing)
        return stop
    }

    /// Marks the end of that command.
    static func stopListening() {
        listening.store(false, ordering: .releasing)
    }
}
