@preconcurrency import Glibc
import Foundation
import Ollama
import TroveKit
import TroveStore
import TroveTestSupport

/// `trove-bench index`: indexing throughput against the in-process fake Ollama with zero latency, so the numbers
/// show Trove's own overhead (crawl, chunk, HTTP, JSON, SQLite), not a model's. Every configuration indexes the
/// same generated tree into a fresh index, side by side in one run; then a no-op re-index of the last one.
enum IndexBenchmark {
    static let usage = """
        usage: trove-bench index [--files N] [--sections S] [--corpus PATH --copies N] [--dimension D]
                                 [--configs BATCHxJOBS,…]
          --files N        generated notes (default 10000), each with S sections (default 5): one chunk each
          --corpus PATH    copy a real folder N times instead (copies reuse each other's vectors)
          --configs LIST   batch × jobs pairs to compare (default 64x1,64x2,16x2,256x2)
        """

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
        var files = 10_000
        var sections = 5
        var corpus: String?
        var copies = 100
        var dimension = 768
        var configs = [(64, 1), (64, 2), (16, 2), (256, 2)]
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" {
                print(usage)
                return
            }
            guard let value = rest.popFirst() else { throw BenchmarkUsage(usage) }
            switch flag {
            case "--files": files = Int(value) ?? files
            case "--sections": sections = Int(value) ?? sections
            case "--corpus": corpus = value
            case "--copies": copies = Int(value) ?? copies
            case "--dimension": dimension = Int(value) ?? dimension
            case "--configs":
                configs = try value.split(separator: ",").map { pair in
                    let parts = pair.split(separator: "x").compactMap { Int($0) }
                    guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { throw BenchmarkUsage(usage) }
                    return (parts[0], parts[1])
                }
            default: throw BenchmarkUsage(usage)
            }
        }

        let work = try TemporaryDirectory()
        let tree = work.path + "/tree"
        if let corpus {
            for copy in 0..<copies {
                try FileManager.default.copyItem(atPath: corpus, toPath: tree + "/copy\(copy)")
            }
        } else {
            try generate(files: files, sections: sections, into: tree)
        }
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text", dimension: dimension)])
        defer { server.stop() }
        let embedder = OllamaEmbedder(client: OllamaClient(baseURL: server.baseURL), model: "nomic-embed-text")

        let source = corpus.map { "\($0) ×\(copies)" } ?? "\(files) generated notes × \(sections) sections"
        print("Indexing \(source), d=\(dimension), zero-latency fake Ollama in the same process")
        print("")
        print("| run | batch | jobs | files | chunks embedded | seconds | files/s | chunks/s | peak RSS MB |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        var last: (IndexStore, IndexOptions)?
        for (number, (batch, jobs)) in configs.enumerated() {
            let store = try IndexStore(path: work.path + "/bench\(number).sqlite", createIfMissing: true)
            let options = IndexOptions(roots: [tree], batchSize: batch, jobs: jobs)
            let first = try await Indexer(store: store, embedder: embedder).run(options) { _ in }
            print(row("first index", batch, jobs, first.newDocuments, first.chunksEmbedded, first.seconds))
            last = (store, options)
        }
        if let (store, options) = last {
            let again = try await Indexer(store: store, embedder: embedder).run(options) { _ in }
            print(
                row("no-op re-index", options.batchSize, options.jobs, again.unchangedDocuments, again.chunksEmbedded,
                    again.seconds))
            let stats = try store.statistics()
            print("")
            print("index size: \(String(format: "%.1f", Double(stats.bytesOnDisk) / 1e6)) MB for \(stats.chunks) chunks")
        }
    }

    /// Notes with `sections` headed sections of distinct words each, so no chunk's vector can be reused.
    static func generate(files: Int, sections: Int, into tree: String) throws {
        let words = ["river", "stone", "garden", "kayak", "bridge", "lantern", "harbour", "meadow", "copper", "violin"]
        for file in 0..<files {
            var text = "# Note \(file)\n"
            for section in 0..<sections {
                text += "\n## Part \(section)\n\n"
                for sentence in 0..<6 {
                    let seed = file &* 31 &+ section &* 7 &+ sentence
                    text += "Sentence \(sentence) of part \(section) in note \(file) mentions "
                        + "\(words[seed % 10]) \(words[(seed / 10) % 10]) and the number \(seed).\n"
                }
            }
            let folder = tree + "/d\(file / 100)"
            if file % 100 == 0 { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try text.write(toFile: folder + "/note\(file).md", atomically: false, encoding: .utf8)
        }
    }

    private static func row(_ name: String, _ batch: Int, _ jobs: Int, _ files: Int, _ chunks: Int, _ seconds: Double)
        -> String
    {
        let fps = seconds > 0 ? Double(files) / seconds : 0
        let cps = seconds > 0 ? Double(chunks) / seconds : 0
        return "| \(name) | \(batch) | \(jobs) | \(files) | \(chunks) | \(String(format: "%.2f", seconds)) | "
            + "\(String(format: "%.0f", fps)) | \(String(format: "%.0f", cps)) | "
            + "\(String(format: "%.0f", peakResidentMegabytes())) |"
    }

    /// The process's peak resident set so far (Linux reports ru_maxrss in KiB); it only grows, so later rows
    /// show the largest of all runs so far.
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
