import Foundation
import Synchronization
import TroveIngest

/// The host side of extraction: hands each file's open descriptor to a long-lived worker process (`trove
/// extract-worker`) and waits for its document under a watchdog. A crash, trap, hang or memory blow-up ends only the
/// worker, which is started again for the next file; the caller gets the named `ExtractionFailure`.
package final class ExtractionService: Sendable {
    private let command: [String]
    private let limits: ExtractionLimits
    private let policy: WorkerPolicy
    private let environment: [String: String]
    /// The running worker; only touched while `exclusive` is held, except `shutdown`'s kill.
    private let worker = Mutex<WorkerProcess?>(nil)
    /// Set by `shutdown`: no worker is started again.
    private let stopped = Mutex(false)
    /// Held for each exchange: one request at a time goes to the worker.
    private let exclusive = Mutex(())

    /// `workerCommand`: argv that starts a worker, e.g. [trove's own executable, "extract-worker"].
    package convenience init(workerCommand: [String], limits: ExtractionLimits = ExtractionLimits()) {
        self.init(workerCommand: workerCommand, limits: limits, policy: WorkerPolicy())
    }

    /// A service whose worker runs under `policy` (its watchdog, memory limit and restarts).
    package init(workerCommand: [String], limits: ExtractionLimits, policy: WorkerPolicy) {
        let environment = ProcessInfo.processInfo.environment
        var command = workerCommand
        if let first = command.first, let path = Subprocess.find(first, searchPath: environment["PATH"]) {
            command[0] = path
        }
        self.command = command
        self.limits = limits
        self.policy = policy
        self.environment = Self.workerEnvironment(environment)
    }

    deinit { shutdown() }

    /// Extracts the already-open read-only file `descriptor` (still owned by the caller) of `format` in the worker.
    package func extract(descriptor: Int32, format: DocumentFormat) async throws(ExtractionFailure) -> ExtractedDocument {
        let result: Result<ExtractedDocument, ExtractionFailure> = await withCheckedContinuation { continuation in
            // The exchange blocks (poll on the worker's socket) for as long as the file takes: on a thread of its own,
            // never the cooperative pool's, nor a dispatch queue's, whose threads are as few as the CPUs and were
            // seen to keep a request waiting minutes behind other blocked work on a loaded 2-vCPU machine.
            Thread {
                let result = self.exclusive.withLock { _ in
                    Result { () throws(ExtractionFailure) in try self.extractBlocking(descriptor: descriptor, format: format) }
                }
                continuation.resume(returning: result)
            }.start()
        }
        return try result.get()
    }

    /// Stops the worker (also done on deinit).
    package func shutdown() {
        stopped.withLock { $0 = true }
        // Killing it here, without waiting for `exclusive`, ends an extraction in flight at once; that exchange then
        // reaps it.
        worker.withLock { $0?.kill() }
    }

    private func extractBlocking(descriptor: Int32, format: DocumentFormat) throws(ExtractionFailure) -> ExtractedDocument {
        guard !stopped.withLock({ $0 }) else { throw ExtractionFailure(.crashed, "extraction was stopped") }
        let running = try runningWorker()
        do {
            let document = try running.exchange(
                WorkerRequest(format: format, limits: limits, deadline: Int(timeout.components.seconds)),
                descriptor: descriptor, timeout: timeout,
                replyLimit: Self.replyLimit(limits))
            retireIfDone(running)
            return document
        } catch {
            retireIfDone(running)
            throw error
        }
    }

    /// The worker, started when there is none (the first file, or after one died or served its quota).
    private func runningWorker() throws(ExtractionFailure) -> WorkerProcess {
        if let running = worker.withLock({ $0 }), running.alive { return running }
        guard !command.isEmpty else { throw ExtractionFailure(.crashed, "no extraction worker command") }
        let confined =
            policy.confine
            ? Confinement.wrap(command, environment: environment, limits: WorkerProcess.limits(policy)) : nil
        let started = try WorkerProcess(command: confined ?? command, environment: environment, policy: policy)
        worker.withLock { $0 = started }
        return started
    }

    private func retireIfDone(_ running: WorkerProcess) {
        guard !running.alive || running.served >= policy.filesPerWorker else { return }
        _ = running.end()
        worker.withLock { $0 = nil }
    }

    /// The watchdog's limit on one file: the policy's, plus 15 s for each page OCR may read (2.4–2.7 s a page
    /// measured with one thread, formats review §1.2.5, with room for a loaded machine).
    private var timeout: Duration { policy.timeout + .seconds(15) * limits.ocrPages }

    /// The longest reply line the host reads: the worker's text cap, with room for JSON's escapes and structure.
    package static func replyLimit(_ limits: ExtractionLimits) -> Int { limits.maxOutputBytes * 2 + (8 << 20) }

    /// What the worker inherits: PATH and the locale, nothing else of the user's environment (no tokens or keys);
    /// no crash backtracer (a crash should end the worker at once), one OpenMP thread for OCR.
    static func workerEnvironment(_ environment: [String: String]) -> [String: String] {
        var kept = environment.filter { ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TESSDATA_PREFIX"].contains($0.key) }
        kept["PATH"] = kept["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        kept["SWIFT_BACKTRACE"] = "enable=no"
        kept["OMP_THREAD_LIMIT"] = "1"
        return kept
    }
}
