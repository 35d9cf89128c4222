import Foundation
@preconcurrency import Glibc
import TroveArguments
import TroveExtract
import TroveIngest
import TroveTestSupport

/// `trove-bench extract`: extraction speed per format through the real path (an `ExtractionService`, the file's
/// descriptor handed to `trove extract-worker`), with the bare tool (`pdftotext`) timed on the same PDFs in the same
/// rounds, so the worker's overhead reads as a ratio.
enum ExtractBenchmark {
    static let rounds = Option("--rounds", value: "R", .integer(min: 1), help: "passes over the files", default: "3")
    static let trove = Option(
        "--trove", value: "PATH", .file, help: "the trove binary whose extract-worker runs",
        default: "the trove beside this trove-bench")
    static let unconfined = Option("--unconfined", help: "run the worker without bubblewrap")

    static let spec = CommandSpec(
        name: "extract", abstract: "extraction speed per format (PDF pages/s, MB/s, files/s) through the worker",
        usage: "trove-bench extract [options] FILE|FOLDER…",
        discussion: """
            Extracts every file of an extracted format (by extension) under the operands, --rounds times, through one
            long-lived worker, as trove index does, one format after the other. Prints, per format, files, input MB,
            pages (PDF), the best round's wall-clock seconds, the CPU seconds of one round (this process, the worker
            and the tools it runs: user + system, the mean over the rounds, which a loaded host does not inflate as
            it does wall-clock time) and files, MB and pages per CPU second; for PDF also plain `pdftotext FILE -` on
            the same files, and the ratio of CPU times; then the CPU seconds of extracting every file once.
            Failures are counted by outcome.
            """,
        groups: [OptionGroup("Options", [rounds, trove, unconfined])], operands: .file)

    struct Tally {
        var files = 0
        var bytes = 0
        var pages = 0
        /// The best round's wall-clock seconds.
        var seconds = Double.infinity
        /// CPU seconds of one round (the mean over the rounds), the worker and its tools included.
        var cpu = 0.0
        var failures: [String: Int] = [:]
    }

    static func main(_ arguments: Arguments) async throws -> Int32 {
        let rounds = arguments.integer(Self.rounds) ?? 3
        let files = try arguments.operands.flatMap(collect).sorted { $0.0 < $1.0 }
        guard !files.isEmpty else { throw UsageError("no file of an extracted format under the operands") }
        var policy = WorkerPolicy()
        policy.confine = !arguments.flag(Self.unconfined)
        policy.timeout = .seconds(300)
        // One worker throughout: a confined worker replaced midway (every 1,000 files) is killed with its bubblewrap
        // parent, which never waits for it, so its CPU time would be lost to the count.
        policy.filesPerWorker = .max
        let service = ExtractionService(
            workerCommand: [arguments.value(Self.trove) ?? builtProduct("trove"), "extract-worker"],
            limits: ExtractionLimits(), policy: policy)
        defer { service.shutdown() }
        var tallies: [DocumentFormat: Tally] = [:]
        // One format at a time, so the CPU time of the process tree between two readings is that format's alone.
        for format in Set(files.map(\.1)).sorted(by: { $0.rawValue < $1.rawValue }) {
            var tally = Tally()
            let cpuBefore = ProcessTreeCPU.now()
            for round in 0..<rounds {
                var time = 0.0
                for (path, kind) in files where kind == format {
                    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                    guard descriptor >= 0 else { continue }
                    defer { close(descriptor) }
                    let started = ContinuousClock.now
                    let result: Result<ExtractedDocument, ExtractionFailure>
                    do throws(ExtractionFailure) {
                        result = .success(try await service.extract(descriptor: descriptor, format: format))
                    } catch {
                        result = .failure(error)
                    }
                    time += (ContinuousClock.now - started) / .seconds(1)
                    guard round == 0 else { continue }
                    switch result {
                    case .success(let document):
                        tally.files += 1
                        tally.bytes += Int(lseek(descriptor, 0, SEEK_END))
                        tally.pages += document.locators.filter { $0.kind == .page }.last?.number ?? 0
                    case .failure(let failure):
                        tally.failures[failure.kind.rawValue, default: 0] += 1
                    }
                }
                tally.seconds = min(tally.seconds, time)
            }
            tally.cpu = (ProcessTreeCPU.now() - cpuBefore) / Double(rounds)
            tallies[format] = tally
        }
        var bare = Tally()
        let pdfs = files.filter { $0.1 == .pdf }.map(\.0)
        if !pdfs.isEmpty {
            let cpuBefore = ProcessTreeCPU.now()
            for _ in 0..<rounds { bare.seconds = min(bare.seconds, pdfs.map(bareRun).reduce(0, +)) }
            bare.cpu = (ProcessTreeCPU.now() - cpuBefore) / Double(rounds)
        }
        print(
            "format    files       MB   pages  best s   CPU s  files/CPU-s  MB/CPU-s  pages/CPU-s  failures")
        for (format, tally) in tallies.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let rate = { (value: Double) in tally.cpu > 0 ? value / tally.cpu : 0 }
            let failures = tally.failures.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                .joined(separator: ", ")
            print(
                format.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                    + String(
                        format: "%6d %8.2f %7d %7.3f %7.3f %12.1f %9.2f %12.1f  %@", tally.files,
                        Double(tally.bytes) / 1e6, tally.pages, tally.seconds.isFinite ? tally.seconds : 0, tally.cpu,
                        rate(Double(tally.files)), rate(Double(tally.bytes) / 1e6), rate(Double(tally.pages)),
                        failures.isEmpty ? "-" : failures))
        }
        if let pdf = tallies[.pdf], pdf.cpu > 0, bare.cpu > 0 {
            print(
                String(
                    format: "pdftotext alone on the same PDFs: %.3f CPU s (%.1f pages/CPU-s); through the worker: "
                        + "%.2f× its CPU time", bare.cpu, Double(pdf.pages) / bare.cpu, pdf.cpu / bare.cpu))
        }
        let total = tallies.values.map(\.cpu).reduce(0, +)
        print(String(format: "extraction of every file once: %.3f CPU s", total))
        return 0
    }

    /// The files under `operand` whose extension names an extracted format.
    static func collect(_ operand: String) throws -> [(String, DocumentFormat)] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: operand, isDirectory: &isFolder) else {
            throw UsageError("no such file or folder: \(operand)")
        }
        let paths =
            isFolder.boolValue
            ? (FileManager.default.enumerator(atPath: operand)?.compactMap { $0 as? String } ?? []).map {
                operand + "/" + $0
            } : [operand]
        return paths.compactMap { path in
            DocumentFormat(fileExtension: (path as NSString).pathExtension).map { (path, $0) }
        }
    }

    /// Seconds `pdftotext FILE -` takes, its output read and dropped.
    static func bareRun(_ path: String) -> Double {
        guard let pdftotext = Subprocess.find("pdftotext", searchPath: ProcessInfo.processInfo.environment["PATH"])
        else { return 0 }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(null) }
        let started = ContinuousClock.now
        _ = try? ToolRun.run(
            pdftotext, arguments: ["pdftotext", path, "-"], input: null, environment: [:], outputCap: 1 << 30)
        return (ContinuousClock.now - started) / .seconds(1)
    }
}
