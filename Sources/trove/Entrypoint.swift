@preconcurrency import Glibc
import Foundation
import TroveBLAS
import TroveCLI

@main
struct Entrypoint {
    static func main() async {
        // `trove search … | head` closes the pipe early: a write should fail with EPIPE, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        // Before any thread starts: OpenBLAS loads later, on first use, and reads OPENBLAS_CORETYPE then.
        KernelChoice.prepareEnvironment()
        // Ctrl-C / SIGTERM: `trove index` finishes its transaction and exits 130; `ask`/`chat` stop the answer.
        Interrupts.install()
        let console = Console(
            output: FileStream.standardOutput, error: FileStream.standardError,
            environment: ProcessInfo.processInfo.environment)
        exit(await Launcher.run(Array(CommandLine.arguments.dropFirst()), console: console))
    }
}
