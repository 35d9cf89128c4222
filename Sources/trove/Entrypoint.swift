@preconcurrency import Glibc
import Foundation
import TroveBLAS
import TroveCLI
import TroveExtract

@main
struct Entrypoint {
    static func main() async {
        // The extraction worker (started by trove itself, never listed): none of the CLI's setup applies to it.
        if CommandLine.arguments.dropFirst().first == "extract-worker" {
            exit(ExtractionWorker.run(Array(CommandLine.arguments.dropFirst(2))))
        }
        // `trove search … | head` closes the pipe early: a write should fail with EPIPE, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        // Before any thread starts: OpenBLAS loads later, on first use, and reads OPENBLAS_CORETYPE then.
        KernelChoice.prepareEnvironment()
        if let value = CPU.invalidLimit {
            let names = CPU.Limit.allCases.map(\.rawValue)
            let choices = names.dropLast().joined(separator: ", ") + " or " + names.last!
            FileStream.standardError.write("warning: TROVE_ISA=\(value) ignored: give \(choices), or unset it\n")
        }
        // Ctrl-C / SIGTERM: `trove index` finishes its transaction and exits 130; `ask`/`chat` stop the answer.
        Interrupts.install()
        var console = Console(
            output: FileStream.standardOutput, error: FileStream.standardError,
            environment: ProcessInfo.processInfo.environment)
        // The worker is this very binary (/proc/self/exe, whatever PATH or argv[0] say), as a hidden subcommand.
        console.extractionWorker = [Bundle.main.executablePath ?? CommandLine.arguments[0], "extract-worker"]
        await runAndExit(console)
    }

    /// Exits on the thread that ran the command: resuming `main` (on the main actor) first would start a thread for
    /// the main queue, as `dispatch_main` serves it on Linux (an 8 MB stack and a malloc arena at every exit).
    nonisolated static func runAndExit(_ console: Console) async -> Never {
        exit(await Launcher.run(Array(CommandLine.arguments.dropFirst()), console: console))
    }
}
