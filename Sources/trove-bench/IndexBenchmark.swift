@preconcurrency import Glibc
import Foundation
import Ollama
import TroveKit
import TroveStore
import TroveTestSupport

/// `trove-bench index`: indexing throughput of `Corpora/` copied N times, against the in-process fake Ollama with
/// zero latency, so the numbers show Trove's own overhead (crawl, chunk, HTTP, SQLite), not a model's.
enum IndexBenchmark {
    static let usage = "usage: trove-bench index [--copies N] [--corpus PATH] [--dimension D] [--batch B]"

    static func main(_ arguments: [String]) async -> Int32 {
        do {
            try await run(arguments)
            return 0
        } catch let error as BenchmarkUsage {
            fputs("Error: \(error)\n", stderr)
            return 64
        } catch {
            fputs("Error: \(error)\n", stderr)
            return 1
        }
    }

    static func run(_ arguments: [String]) async throws {
        var copies = 100
        var corpus = "Corpora"
        var dimension = 768
        var batch = 64
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BenchmarkUsage(usage) }
            switch flag {
            case "--copies": copies = Int(value) ?? copies
            case "--corpus": corpus = value
            case "--dimension": dimension = Int(value) ?? dimension
            case "--batch": batch = Int(value) ?? batch
            default: throw BenchmarkUsage(usage)
            }
        }

        let work = try TemporaryDirectory()
        let tree = work.path + "/tree"
        for copy in 0..<copies {
            try FileManager.default.copyItem(atPath: corpus, toPath: tree + "/copy\(copy)")
        }
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text", dimension: dimension)])
        defer { server.stop() }
        let store = try IndexStore(path: work.path + "/bench.sqlite", createIfMissing: true)
        let indexer = Indexer(store: store, embedder: OllamaEmbedder(client: OllamaClient(baseURL: server.baseURL), model: "nomic-embed-text"))
        let options = IndexOptions(roots: [tree], batchSize: batch)

        let first = try await indexer.run(options) { _ in }
        let rssAfterFirst = peakResidentMegabytes()
        let again = try await indexer.run(options) { _ in }
        let stats = try store.statistics()

        let files = first.newDocuments
        print("Indexing \(corpus) ×\(copies): \(files) files, \(first.chunksEmbedded) chunks, d=\(dimension), batch \(batch)")
        print("")
        print("| run | files | chunks embedded | seconds | files/s | chunks/s | peak RSS MB |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        print(row("first index", files, first.chunksEmbedded, first.seconds, rssAfterFirst))
        print(row("no-op re-index", again.unchangedDocuments, again.chunksEmbedded, again.seconds, peakResidentMegabytes()))
        print("")
        print("index size: \(String(format: "%.1f", Double(stats.bytesOnDisk) / 1e6)) MB")
    }

    private static func row(_ name: String, _ files: Int, _ chunks: Int, _ seconds: Double, _ rss: Double) -> String {
        let fps = seconds > 0 ? Double(files) / seconds : 0
        let cps = seconds > 0 ? Double(chunks) / seconds : 0
        return "| \(name) | \(files) | \(chunks) | \(String(format: "%.2f", seconds)) | \(String(format: "%.0f", fps)) | "
            + "\(String(format: "%.0f", cps)) | \(String(format: "%.0f", rss)) |"
    }

    /// The process's peak resident set so far (Linux reports ru_maxrss in KiB).
    static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}

/// A bad benchmark command line.
struct BenchmarkUsage: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
