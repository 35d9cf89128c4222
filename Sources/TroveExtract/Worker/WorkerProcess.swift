import CTroveProcess
import Foundation
import Synchronization
@preconcurrency import Glibc
import TroveIngest
import TroveSystem

/// One running worker as the host sees it: the process, the socket to it, and its standard error (read for the
/// last words of a crash). Used only by `ExtractionService`: its exchanges run one at a time under the service's
/// lock; only `kill` may come without it, and the lock on `reaped` orders it with the reaping.
package final class WorkerProcess: @unchecked Sendable {
    private let process: Subprocess
    private let socket: Int32
    private let errors: Int32
    /// Files extracted by this worker.
    private(set) var served = 0
    /// The end of the worker's standard error.
    private var lastWords: [UInt8] = []
    /// Its address-space limit, named when it ran out of memory.
    private let memoryBytes: Int
    /// True once the process was waited for: its pid may then belong to another, so it is never signalled again.
    private let reaped = Mutex(false)
    /// False once the worker's standard error reached its end.
    private var errorsOpen = true

    /// Starts `command` (argv; the first word a path) under `policy`'s limits.
    init(command: [String], environment: [String: String], policy: WorkerPolicy) throws(ExtractionFailure) {
        var pair: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0, socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0,
            trove_pipe(&errorPipe) == 0
        else {
            let reason = String(cString: strerror(errno)).lowercased()
            ([null] + pair + errorPipe).filter { $0 >= 0 }.forEach { close($0) }
            throw ExtractionFailure(.crashed, "the extraction worker could not start: \(reason)")
        }
        defer {
            close(null)
            close(pair[1])
            close(errorPipe[1])
        }
        do {
            process = try Subprocess.start(
                command[0], arguments: command, environment: environment,
                descriptors: [null, null, errorPipe[1], pair[1]],
                limits: Self.limits(policy))
        } catch {
            close(pair[0])
            close(errorPipe[0])
            throw ExtractionFailure(.crashed, "the extraction worker \(error.detail)")
        }
        socket = pair[0]
        errors = errorPipe[0]
        memoryBytes = policy.memoryBytes
        _ = fcntl(errors, F_SETFL, fcntl(errors, F_GETFL) | O_NONBLOCK)
    }

    /// The limits a worker runs under.
    package static func limits(_ policy: WorkerPolicy) -> Subprocess.Limits {
        Subprocess.Limits(addressSpace: policy.memoryBytes, openFiles: policy.openFiles, confine: true)
    }

    deinit {
        _ = end()
        close(socket)
        close(errors)
    }

    /// Kills the worker and everything it started (its process group) and reaps it: how it ended.
    func end() -> Subprocess.Termination? {
        reaped.withLock { reaped in
            guard !reaped else { return nil }
            reaped = true
            process.kill()
            return process.wait()
        }
    }

    /// Kills the worker and what it started, from any thread, unless it was already reaped; `end` reaps it.
    func kill() {
        reaped.withLock { if !$0 { process.kill() } }
    }

    /// False once the worker was reaped (it died, or was killed).
    var alive: Bool { !reaped.withLock { $0 } }

    /// Sends one request with `descriptor` attached and waits for the reply, at most `timeout`. A reply line longer
    /// than `replyLimit` is refused. Throws the failure; `alive` is false afterwards when the worker is gone (killed, or dead).
    func exchange(
        _ request: WorkerRequest, descriptor: Int32, timeout: Duration, replyLimit: Int
    ) throws(ExtractionFailure) -> ExtractedDocument {
        served += 1
        let line = request.line()
        let sent = line.withUnsafeBytes {
            Int(trove_send_descriptor(socket, $0.baseAddress, UInt($0.count), descriptor))
        }
        guard sent > 0 else { throw death() }
        if sent < line.count {
            let rest = line.dropFirst(sent)
            guard rest.withUnsafeBytes({ FileDescriptor(socket).send(all: $0, flags: Int32(MSG_NOSIGNAL)) }) == rest.count
            else { throw death() }
        }
        let deadline = ContinuousClock.now + timeout
        var framer = LineFramer(limit: replyLimit)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                _ = end()
                throw ExtractionFailure(.timeout, "no result within \(timeout.components.seconds) s")
            }
            var polls = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: errorsOpen ? errors : -1, events: Int16(POLLIN), revents: 0),
            ]
            let milliseconds = Int32(min(60_000, (left / .milliseconds(1)).rounded(.up)))
            guard retryingInterrupts({ poll(&polls, 2, milliseconds) }) >= 0 else { throw death() }
            if polls[1].revents != 0 { drainErrors() }
            guard polls[0].revents != 0 else { continue }
            let got = buffer.withUnsafeMutableBytes { FileDescriptor(socket).receive(into: $0) }
            guard got > 0 else { throw death() }
            for piece in framer.feed(Data(buffer[..<got])) {
                guard case .line(let reply) = piece else {
                    _ = end()
                    throw ExtractionFailure(
                        .damaged, "the extractor's output passed \(ByteSize.format(Int64(replyLimit)))")
                }
                switch try? JSONDecoder().decode(WorkerReply.self, from: reply) {
                case .document(let document): return document
                case .failure(let failure): throw failure
                case nil:
                    _ = end()
                    throw ExtractionFailure(.crashed, "the extraction worker answered what is not a reply")
                }
            }
        }
    }

    /// The worker's end as a failure: reaped, and named by its signal or exit status and its last words.
    private func death() -> ExtractionFailure {
        // Killing first also ends what the worker started (its process group) before the group leader is reaped.
        let termination = end() ?? .signalled(SIGKILL)
        drainErrors()
        let words = String(decoding: lastWords, as: UTF8.self)
        if ToolRun.saysOutOfMemory(words) {
            return ExtractionFailure(.outOfMemory, "the extractor ran past \(ByteSize.format(Int64(memoryBytes)))")
        }
        switch termination {
        case .signalled(let signal):
            return ExtractionFailure(.crashed, "the extractor died of \(signalName(signal))")
        case .exited(let status) where status > 128 && status < 128 + 65:
            // bwrap reports a child's death by signal as the shell does: 128 + the signal.
            return ExtractionFailure(.crashed, "the extractor died of \(signalName(status - 128))")
        case .exited(let status):
            return ExtractionFailure(.crashed, "the extractor exited with status \(status)")
        }
    }

    /// Reads what the worker wrote to its standard error so far (it never blocks: the pipe is non-blocking).
    private func drainErrors() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while errorsOpen {
            let got = buffer.withUnsafeMutableBytes { FileDescriptor(errors).read(into: $0) }
            if got == 0 { errorsOpen = false }
            guard got > 0 else { return }
            lastWords.append(contentsOf: buffer[..<got])
            if lastWords.count > 8192 { lastWords.removeFirst(lastWords.count - 4096) }
        }
    }
}
