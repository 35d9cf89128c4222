@preconcurrency import Glibc
import Foundation
import Synchronization
import Testing
import TroveSystem

/// A handler that does nothing, installed without `SA_RESTART`, so a blocked `read` or `write` fails with `EINTR`.
private func installInterruptingHandler() -> sigaction {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in }
    action.sa_flags = 0
    sigemptyset(&action.sa_mask)
    var previous = sigaction()
    sigaction(SIGUSR1, &action, &previous)
    return previous
}

/// Runs `body` on a thread of its own, signalling that thread with SIGUSR1 every 5 ms until it returns, after
/// `unblock` runs (once the signals have had a chance to land in a blocked call).
private func interrupted<T: Sendable>(
    _ body: @escaping @Sendable () -> T, unblock: @escaping @Sendable () -> Void
) async -> (result: T, signals: Int) {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            let thread = Mutex<pthread_t?>(nil)
            let done = Atomic<Bool>(false)
            let result = Mutex<T?>(nil)
            let worker = Thread {
                // Threads may start with signals blocked (the test runner's are): this one must take SIGUSR1.
                var set = sigset_t()
                sigemptyset(&set)
                sigaddset(&set, SIGUSR1)
                pthread_sigmask(SIG_UNBLOCK, &set, nil)
                thread.withLock { $0 = pthread_self() }
                result.withLock { $0 = body() }
                done.store(true, ordering: .releasing)
            }
            worker.start()
            var signals = 0
            while !done.load(ordering: .acquiring) {
                usleep(5_000)
                if let target = thread.withLock({ $0 }), !done.load(ordering: .acquiring) {
                    pthread_kill(target, SIGUSR1)
                    signals += 1
                }
                if signals == 20 { unblock() }
            }
            continuation.resume(returning: (result.withLock { $0! }, signals))
        }
    }
}

@Suite("File descriptors retry what a signal interrupts", .serialized)
struct FileDescriptorTests {
    /// The handler SIGUSR1 had before a test.
    private static let previous = Mutex<sigaction?>(nil)

    /// A pipe (read end, write end), with SIGUSR1 set to interrupt until `restore`.
    private static func interruptiblePipe() throws -> (Int32, Int32) {
        var pipes: [Int32] = [0, 0]
        try #require(pipe(&pipes) == 0)
        let old = installInterruptingHandler()
        previous.withLock { $0 = old }
        return (pipes[0], pipes[1])
    }

    /// Closes the pipe and gives SIGUSR1 its handler back.
    private static func restore(_ reader: Int32, _ writer: Int32) {
        close(reader)
        close(writer)
        if var old = previous.withLock({ $0 }) { sigaction(SIGUSR1, &old, nil) }
    }

    @Test("a plain read on a pipe is interrupted by the signal (the test's control)")
    func control() async throws {
        let (reader, writer) = try Self.interruptiblePipe()
        defer { Self.restore(reader, writer) }
        let (result, _) = await interrupted({ () -> Int32 in
            var byte: UInt8 = 0
            return read(reader, &byte, 1) < 0 ? errno : 0
        }, unblock: { _ = write(writer, "x", 1) })
        #expect(result == EINTR)
    }

    @Test("read(exactly:) gets every byte through signals that interrupt it")
    func readThroughSignals() async throws {
        let (reader, writer) = try Self.interruptiblePipe()
        defer { Self.restore(reader, writer) }
        let (result, signals) = await interrupted({ () -> [UInt8]? in
            var bytes = [UInt8](repeating: 0, count: 5)
            return bytes.withUnsafeMutableBytes { FileDescriptor(reader).read(exactly: $0) } ? bytes : nil
        }, unblock: { _ = write(writer, "hello", 5) })
        #expect(signals >= 20)
        #expect(result == Array("hello".utf8))
    }

    @Test("write(all:) puts every byte into a full pipe through signals that interrupt it")
    func writeThroughSignals() async throws {
        let (reader, writer) = try Self.interruptiblePipe()
        defer { Self.restore(reader, writer) }
        // Four times a pipe's default buffer: the writer blocks until the drain starts.
        let payload = (0..<(256 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let drained = Mutex<[UInt8]>([])
        let drain: @Sendable () -> Void = {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var all: [UInt8] = []
            while all.count < payload.count {
                let got = buffer.withUnsafeMutableBytes { FileDescriptor(reader).read(into: $0) }
                guard got > 0 else { break }
                all += buffer[..<got]
            }
            drained.withLock { $0 = all }
        }
        let (written, _) = await interrupted(
            { payload.withUnsafeBytes { FileDescriptor(writer).write(all: $0) } },
            unblock: { Thread.detachNewThread(drain) })
        #expect(written)
        while drained.withLock({ $0.count }) < payload.count { try await Task.sleep(for: .milliseconds(10)) }
        #expect(drained.withLock { $0 } == payload)
    }

    @Test("read(exactly:) is false at an end of input before the buffer is full")
    func shortInput() throws {
        var pipes: [Int32] = [0, 0]
        try #require(pipe(&pipes) == 0)
        defer { close(pipes[0]) }
        _ = write(pipes[1], "abc", 3)
        close(pipes[1])
        var bytes = [UInt8](repeating: 0, count: 5)
        #expect(!bytes.withUnsafeMutableBytes { FileDescriptor(pipes[0]).read(exactly: $0) })
    }
}
