import Dispatch
import Foundation
@preconcurrency import Glibc
import Ollama
import TroveKit

/// `trove pull NAME`: downloads a model through Ollama, with progress.
struct PullCommand: Command {
    static let name = "pull"
    static let abstract = "Download a model into Ollama, showing progress; run again to resume an interrupted pull."
    static let usage = "trove pull [options] NAME"
    static let discussion = """
        On a terminal, a progress bar shows bytes, rate and time left; otherwise one line per step.
        Ollama keeps what was downloaded, so an interrupted pull resumes when run again.
        """
    static let optionGroups = [OptionGroup("Options", [insecure] + ModelServerOptions.options)]
    static let epilogue = """
        Examples:
          trove pull nomic-embed-text
          trove pull llama3.2:1b
        """

    static let insecure = Option("--insecure", help: "allow a registry without TLS")

    var server: ModelServerOptions
    var model: String
    var insecure: Bool

    init(parsing arguments: inout Arguments) throws {
        server = try ModelServerOptions(parsing: &arguments)
        insecure = arguments.flag(Self.insecure)
        let name = try ModelServerOptions.oneModel(
            arguments, missing: "missing the model to pull, e.g. nomic-embed-text", verb: "pull")
        do { _ = try Model.ID(parsing: name) } catch { throw UsageError(String(describing: error)) }
        model = name
    }

    func run(_ console: Console) async throws -> Int32 {
        let client = try server.settings(console).client
        let terminal = console.error.isTerminal
        let line = ProgressLine(stream: console.error, enabled: terminal)
        let model = self.model
        let insecure = self.insecure
        let work = Task { () async throws -> Void in
            var meter = ProgressMeter()
            var lastStatus = ""
            for try await update in client.pull(model, insecure: insecure) {
                if terminal {
                    line.update(meter.render(update, now: ContinuousClock.now))
                } else if update.status != lastStatus {
                    let size = update.total.map { ": " + ByteSize.format($0) } ?? ""
                    console.log(update.status + size)
                }
                lastStatus = update.status
            }
        }
        // Ctrl-C cancels the pull (and its HTTP request) instead of killing the process mid-line.
        Interrupts.onNext { work.cancel() }
        defer { Interrupts.clear() }
        do {
            try await work.value
            line.clear()
        } catch let error as OllamaError {
            line.clear()
            if error.kind == .cancelled || work.isCancelled {
                console.log("interrupted — run trove pull \(model) again to resume where it stopped")
                return ExitCode.interrupted
            }
            if [.unreachable, .timeout, .unexpectedResponse].contains(error.kind) {
                console.log("Error: \(error) — run trove pull \(model) again to resume where it stopped")
                return ExitCode.forError(error)
            }
            throw error
        }
        if work.isCancelled {
            console.log("interrupted — run trove pull \(model) again to resume where it stopped")
            return ExitCode.interrupted
        }
        console.print("pulled \(model)")
        return ExitCode.success
    }
}

/// Turns progress updates into one status line with a bar, bytes, rate and time left.
struct ProgressMeter {
    private var digest: String?
    private var start: ContinuousClock.Instant?
    private var startBytes: Int64 = 0

    /// E.g. `pulling 1a2b3c4d5e6f  45% [#########           ] 1.8 MB/4.0 MB  1.2 MB/s  0:03 left`.
    mutating func render(_ update: OllamaClient.ProgressUpdate, now: ContinuousClock.Instant) -> String {
        guard let total = update.total, total > 0 else { return update.status }
        let completed = min(total, max(0, update.completed ?? 0))
        if update.digest != digest || start == nil {
            digest = update.digest
            start = now
            startBytes = completed
        }
        let fraction = Double(completed) / Double(total)
        let width = 20
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        var text =
            "\(update.status)  \(Int((fraction * 100).rounded(.down)))% [\(bar)] "
            + "\(ByteSize.format(completed))/\(ByteSize.format(total))"
        let elapsed = start.map { (now - $0).seconds } ?? 0
        if elapsed >= 0.5, completed > startBytes {
            let rate = Double(completed - startBytes) / elapsed
            let left = Int((Double(total - completed) / rate).rounded(.up))
            text += "  \(ByteSize.format(Int64(rate)))/s  \(left / 60):\(String(format: "%02d", left % 60)) left"
        }
        return text
    }
}
