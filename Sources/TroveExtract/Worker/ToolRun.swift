import CTroveProcess
@preconcurrency import Glibc
import TroveIngest
import TroveSystem

/// One run of an external tool inside the worker (`pdftotext`, `pdftohtml`): the document's descriptor as its
/// standard input, its standard output read up to a cap, the end of its standard error kept for the message.
/// The worker's own limits (memory, no files, the host's watchdog on the whole process group) cover it, and it dies
/// with the thread that started it (the worker's), so it cannot outlive a worker that died.
package struct ToolRun: Sendable {
    /// How the tool ended.
    package var termination: Subprocess.Termination
    /// Its standard output, up to the cap.
    package var output: [UInt8]
    /// True when the output passed the cap (the tool was stopped there).
    package var truncated: Bool
    /// The last 4 KiB of its standard error.
    package var errors: String

    /// Runs `path` with `arguments` (argv[0] included), `input` as its standard input, reading at most
    /// `outputCap` bytes of its standard output. Throws the errno when it cannot be started.
    package static func run(
        _ path: String, arguments: [String], input: Int32, environment: [String: String], outputCap: Int,
        limits: Subprocess.Limits = Subprocess.Limits(dieWithParent: true)
    ) throws(SpawnError) -> ToolRun {
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard trove_pipe(&outputPipe) == 0 else { throw SpawnError(program: path, errno: errno) }
        guard trove_pipe(&errorPipe) == 0 else {
            close(outputPipe[0])
            close(outputPipe[1])
            throw SpawnError(program: path, errno: errno)
        }
        let child: Subprocess
        do {
            child = try Subprocess.start(
                path, arguments: arguments, environment: environment,
                descriptors: [input, outputPipe[1], errorPipe[1]], limits: limits)
        } catch {
            [outputPipe[0], outputPipe[1], errorPipe[0], errorPipe[1]].forEach { close($0) }
            throw error
        }
        close(outputPipe[1])
        close(errorPipe[1])
        defer {
            close(outputPipe[0])
            close(errorPipe[0])
        }
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var truncated = false
        var open = [outputPipe[0], errorPipe[0]]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            var polls = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard retryingInterrupts({ poll(&polls, nfds_t(polls.count), -1) }) >= 0 else { break }
            for entry in polls where entry.revents != 0 {
                let got = buffer.withUnsafeMutableBytes { FileDescriptor(entry.fd).read(into: $0) }
                if got <= 0 {
                    open.removeAll { $0 == entry.fd }
                } else if entry.fd == outputPipe[0] {
                    output.append(contentsOf: buffer[..<got])
                    if output.count > outputCap {
                        truncated = true
                        output.removeLast(output.count - outputCap)
                        child.kill()
                        open.removeAll { $0 == entry.fd }
                    }
                } else {
                    errors.append(contentsOf: buffer[..<got])
                    if errors.count > 8192 { errors.removeFirst(errors.count - 4096) }
                }
            }
        }
        let termination = child.wait()
        return ToolRun(
            termination: termination, output: output, truncated: truncated,
            errors: String(decoding: errors.suffix(4096), as: UTF8.self))
    }

    /// The failure a tool's death by signal stands for: out of memory when its message says so (an allocation
    /// failed under the worker's address-space limit), else a crash named by the signal.
    package func deathFailure(tool: String) -> ExtractionFailure? {
        guard case .signalled(let signal) = termination else { return nil }
        if Self.saysOutOfMemory(errors) { return ExtractionFailure(.outOfMemory, "\(tool) ran out of memory") }
        return ExtractionFailure(.crashed, "\(tool) died of \(signalName(signal))")
    }

    /// True when a process's last words are an allocation failure (C++ `bad_alloc`, glibc, Swift's runtime).
    package static func saysOutOfMemory(_ errors: String) -> Bool {
        let lowered = errors.lowercased()
        return ["bad_alloc", "out of memory", "cannot allocate memory", "could not allocate", "failed to allocate"]
            .contains { lowered.contains($0) }
    }

    /// The version a tool prints for `flag` (`pdftotext version 22.12.0`, `bubblewrap 0.8.0`), or nil.
    package static func version(of path: String, environment: [String: String], flag: String = "-v") -> String? {
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(null) }
        guard let run = try? run(path, arguments: [path, flag], input: null, environment: environment, outputCap: 4096)
        else { return nil }
        let words = (run.errors + String(decoding: run.output, as: UTF8.self)).split(whereSeparator: \.isWhitespace)
        let index = words.firstIndex(of: "version").map { $0 + 1 } ?? 1
        return index < words.count ? String(words[index]) : nil
    }
}
