import Foundation
@preconcurrency import Glibc
import Testing
import TroveExtract
import TroveIngest
import TroveTestSupport

/// The extraction worker as trove runs it: `trove extract-worker` started by `ExtractionService` under its limits.
/// Each guard is proven with a fault the worker acts out on purpose (`--test-fault`, which only tests pass): it ends
/// only the worker, the file gets its named outcome, and the next file is answered by a fresh worker.
@Suite("The extraction worker")
struct WorkerTests {
    static let trove = builtProduct("trove")

    /// A service whose worker acts out `fault` on files starting with the marker.
    static func service(
        fault: TestFault? = nil, limits: ExtractionLimits = ExtractionLimits(), policy: WorkerPolicy = WorkerPolicy()
    ) -> ExtractionService {
        let command = [trove, "extract-worker"] + (fault.map { ["--test-fault", $0.rawValue] } ?? [])
        return ExtractionService(workerCommand: command, limits: limits, policy: policy)
    }

    /// Extracts `contents` as `format` through an open descriptor, the way the indexer does.
    static func extract(
        _ contents: [UInt8], as format: DocumentFormat, with service: ExtractionService
    ) async throws -> Result<ExtractedDocument, ExtractionFailure> {
        let folder = try TemporaryDirectory()
        let path = try folder.write("file", data: Data(contents))
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        do throws(ExtractionFailure) {
            return .success(try await service.extract(descriptor: descriptor, format: format))
        } catch {
            return .failure(error)
        }
    }

    static let faulty = TestFault.marker + Array(" and the rest".utf8)

    /// The failure of a result, or nil for a document.
    static func failure(_ result: Result<ExtractedDocument, ExtractionFailure>) -> ExtractionFailure? {
        if case .failure(let failure) = result { return failure }
        return nil
    }

    /// True when the worker answers a real PDF after the fault: with its text where poppler is installed, else
    /// with the named 'tool missing'.
    static func nextFileExtracts(with service: ExtractionService) async throws -> Bool {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/pdf/pages.pdf", withExtension: nil))
        let result = try await extract(Array(try Data(contentsOf: url)), as: .pdf, with: service)
        switch result {
        case .success(let document): return document.lines.contains { $0.contains("apricots") }
        case .failure(let failure): return !popplerInstalled && failure.kind == .toolMissing
        }
    }

    @Test("a crash ends only the worker: the file is 'crashed', the next file is answered")
    func crash() async throws {
        let service = Self.service(fault: .crash)
        defer { service.shutdown() }
        let crashed = Self.failure(try await Self.extract(Self.faulty, as: .pdf, with: service))
        #expect(crashed?.kind == .crashed)
        #expect(crashed?.detail.contains("SIG") == true, "\(String(describing: crashed))")
        #expect(try await Self.nextFileExtracts(with: service))
    }

    @Test("a hang is stopped by the watchdog: the file is a timeout, the next file is answered")
    func hang() async throws {
        var policy = WorkerPolicy()
        // Long enough for the next file (pdftotext) on a loaded machine: 2 s once timed it out in a whole CI run.
        policy.timeout = .seconds(10)
        let service = Self.service(fault: .hang, policy: policy)
        defer { service.shutdown() }
        let started = ContinuousClock.now
        let timedOut = Self.failure(try await Self.extract(Self.faulty, as: .pdf, with: service))
        #expect(timedOut?.kind == .timeout)
        // Generous: worker start and the confinement probe come first, and the test machine may be loaded.
        #expect(ContinuousClock.now - started < .seconds(300))
        #expect(try await Self.nextFileExtracts(with: service))
    }

    @Test("a memory blow-up meets the address-space limit: the file is out of memory, the next is answered")
    func memory() async throws {
        var policy = WorkerPolicy()
        policy.memoryBytes = 1 << 30
        let service = Self.service(fault: .allocate, policy: policy)
        defer { service.shutdown() }
        let failure = Self.failure(try await Self.extract(Self.faulty, as: .pdf, with: service))
        #expect(failure?.kind == .outOfMemory, "\(String(describing: failure))")
        #expect(try await Self.nextFileExtracts(with: service))
    }

    @Test("a reply past the output cap is cut off: the file is damaged, the next is answered")
    func flood() async throws {
        var limits = ExtractionLimits()
        limits.maxOutputBytes = 1 << 20
        let service = Self.service(fault: .flood, limits: limits)
        defer { service.shutdown() }
        let failure = Self.failure(try await Self.extract(Self.faulty, as: .pdf, with: service))
        #expect(failure?.kind == .damaged)
        #expect(failure?.detail.contains("output passed") == true, "\(String(describing: failure))")
        #expect(try await Self.nextFileExtracts(with: service))
    }

    @Test("the fault marker does nothing in a worker started without --test-fault (as trove starts it)")
    func markerIsInert() async throws {
        let service = Self.service()
        defer { service.shutdown() }
        let failure = Self.failure(try await Self.extract(Self.faulty, as: .pdf, with: service))
        #expect(failure?.kind == (popplerInstalled ? .damaged : .toolMissing), "\(String(describing: failure))")
    }

    @Test("a worker command that cannot start is a named failure, not a crash of the caller")
    func missingWorker() async throws {
        let service = ExtractionService(workerCommand: ["/nonexistent/trove", "extract-worker"])
        let failure = Self.failure(try await Self.extract(Array("plain".utf8), as: .pdf, with: service))
        #expect(failure?.kind == .crashed)
        #expect(failure?.detail.contains("could not start") == true, "\(String(describing: failure))")
    }

    @Test("confined by bubblewrap (where it works here), a parser cannot open the user's other files")
    func confinement() async throws {
        let folder = try TemporaryDirectory()
        let secret = try folder.write("secret.txt", "the user's private notes")
        let shadow = "/etc/shadow"
        let peek = TestFault.marker + Array("\n\(secret)\n".utf8)
        var open = WorkerPolicy()
        open.confine = false
        let unconfined = Self.service(fault: .peek, policy: open)
        defer { unconfined.shutdown() }
        #expect(try await Self.extract(peek, as: .pdf, with: unconfined).get().lines == ["visible"])
        let command = [Self.trove, "extract-worker", "--test-fault", "peek"]
        let status = Confinement.status(
            command, environment: ProcessInfo.processInfo.environment,
            limits: Subprocess.Limits(addressSpace: WorkerPolicy().memoryBytes, openFiles: 64, confine: true))
        guard case .available = status else {
            print("SKIP confinement: \(status) (the worker runs under its rlimits alone here)")
            return
        }
        let confined = Self.service(fault: .peek)
        defer { confined.shutdown() }
        #expect(try await Self.extract(peek, as: .pdf, with: confined).get().lines == ["hidden"])
        // Nor the system's secrets (readable by root, as these tests may run).
        let peekShadow = TestFault.marker + Array("\n\(shadow)\n".utf8)
        #expect(try await Self.extract(peekShadow, as: .pdf, with: confined).get().lines == ["hidden"])
        // Confined, it still reads what it is handed and survives its faults.
        #expect(try await Self.nextFileExtracts(with: confined))
    }
}
