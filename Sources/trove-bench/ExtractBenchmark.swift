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
            long-lived worker, as trove index does. Prints, per format, files, input MB, pages (PDF), the best
            round's seconds and files/s, MB/s and pages/s; for PDF also plain `pdftotext FILE -` on the same files in
            the same rounds, and the ratio. Failures are counted by outcome, not timed.
            """,
        groups: [OptionGroup("Options", [rounds, trove, unconfined])], operands: .file)

    struct Tally {
        var files = 0
        var bytes = 0
        var pages = 0
        var seconds = Double.infinity
        var failures: [String: Int] = [:]
    }

    static func main(_ arguments: Arguments) async throws -> Int32 {
        let rounds = arguments.integer(Self.rounds) ?? 3
        let files = try arguments.operands.flatMap(collect).sorted { $0.0 < $1.0 }
        guard !files.isEmpty else { throw UsageError("no file of an extracted format under the operands") }
        var policy = WorkerPolicy()
        policy.confine = !arguments.flag(Self.unconfined)
        policy.timeout = .seconds(300)
        let service = ExtractionService(
            workerCommand: [arguments.value(Self.trove) ?? builtProduct("trove"), "extract-worker"],
            limits: ExtractionLimits(), policy: policy)
        defer { service.shutdown() }
        var tallies: [DocumentFormat: Tally] = [:]
        var bare = Tally()
        for round in 0..<rounds {
            var times: [DocumentFormat: Double] = [:]
            var bareTime = 0.0
            for (path, format) in files {
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
                let took = (ContinuousClock.now - started) / .seconds(1)
                if round == 0 {
                    var tally = tallies[format, default: Tally()]
                    switch result {
                    case .success(let document):
                        tally.files += 1
                        tally.bytes += Int(lseek(descriptor, 0, SEEK_END))
                        tally.pages += document.locators.filter { $0.kind == .page }.last?.number ?? 0
                    case .failure(let failure):
                        tally.failures[failure.kind.rawValue, default: 0] += 1
                    }
                    tallies[format] = tally
                }
                guard case .success = result else { continue }
                times[format, default: 0] += took
                if format == .pdf { bareTime += bareRun(path) }
            }
            for (format, time) in times {
                let best = min(tallies[format]?.seconds ?? .infinity, time)
                tallies[format]?.seconds = best
            }
            bare.seconds = min(bare.seconds, bareTime)
        }
        print("format    files       MB   pages  best s   files/s     MB/s   pages/s  failures")
        for (format, tally) in tallies.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let seconds = tally.seconds.isFinite ? tally.seconds : 0
            let rate = { (value: Double) in seconds > 0 ? value / seconds : 0 }
            let failures = tally.failures.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            print(
                format.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                    + String(format: "%6d %8.2f %7d %7.3f %9.1f %8.2f %9.1f  %@", tally.files,
                        Double(tally.bytes) / 1e6, tally.pages, seconds, rate(Double(tally.files)),
                        rate(Double(tally.bytes) / 1e6), rate(Double(tally.pages)), failures.isEmpty ? "-" : failures))
        }
        if let pdf = tallies[.pdf], pdf.seconds.isFinite, bare.seconds > 0 {
            print(
                String(
                    format: "pdftotext alone on the same PDFs: %.3f s (%.1f pages/s); through the worker: %.2f× its time",
                    bare.seconds, Double(pdf.pages) / bare.seconds, pdf.seconds / bare.seconds))
        }
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
