@preconcurrency import Glibc
import Synchronization
import TroveOutput
import TroveSystem

/// Where a command writes text: a file descriptor, or a buffer in tests.
package protocol TextStream: Sendable {
    func write(_ text: String)
    /// True when a person is watching (a terminal), so progress and colour make sense.
    var isTerminal: Bool { get }
}

/// Standard output or standard error, unbuffered so progress and results interleave correctly.
package struct FileStream: TextStream {
    package let descriptor: Int32

    package static let standardOutput = FileStream(descriptor: STDOUT_FILENO)
    package static let standardError = FileStream(descriptor: STDERR_FILENO)

    package func write(_ text: String) {
        // A failure is EPIPE (`trove search … | head`): the reader is gone, nothing left to tell it.
        _ = Array(text.utf8).withUnsafeBytes { FileDescriptor(descriptor).write(all: $0) }
    }

    package var isTerminal: Bool { isatty(descriptor) == 1 }
}

/// Collects what a command writes, for tests and for callers that embed the CLI.
package final class CapturedStream: TextStream {
    private let buffer = Mutex("")
    package let isTerminal: Bool

    package init(isTerminal: Bool = false) { self.isTerminal = isTerminal }

    package func write(_ text: String) { buffer.withLock { $0 += text } }

    /// Everything written so far.
    package var text: String { buffer.withLock { $0 } }
}

/// The streams and environment a command runs with.
package struct Console: Sendable {
    package var output: any TextStream
    package var error: any TextStream
    package var environment: [String: String]
    /// The argv that starts the extraction worker: `[trove's own path, "extract-worker"]`, set by trove's entry
    /// point; nil where the CLI runs inside another process (the tests), which must not be started as a worker.
    package var extractionWorker: [String]?

    package init(output: any TextStream, error: any TextStream, environment: [String: String]) {
        self.output = output
        self.error = error
        self.environment = environment
    }

    /// Colour and bold only for a person at a terminal, or wherever `CLICOLOR_FORCE` is set to other than 0
    /// (bixense.com/clicolors); never when `NO_COLOR` is set (no-color.org), which wins.
    package var usesColor: Bool {
        guard (environment["NO_COLOR"] ?? "").isEmpty else { return false }
        if let force = environment["CLICOLOR_FORCE"], !force.isEmpty, force != "0" { return true }
        return output.isTerminal && environment["TERM"] != "dumb"
    }

    func print(_ line: String) { output.write(line + "\n") }
    /// A message to stderr; on a terminal, control characters in it (from a file name, a server's message) are
    /// shown escaped, so they cannot act on the terminal.
    func log(_ line: String) { error.write((error.isTerminal ? TerminalText.escaped(line) : line) + "\n") }
}

extension Console {
    /// `text` as it may be written to standard output: escaped when that is a terminal (`TerminalText`).
    func safe(_ text: String, keepingNewlines: Bool = true) -> String {
        output.isTerminal ? TerminalText.escaped(text, keepingNewlines: keepingNewlines) : text
    }
}
