@preconcurrency import Glibc
import Foundation
import TroveArguments
import Ollama
import TroveKit
import TroveStore
import TroveTestSupport

/// `trove-bench index`: indexing throughput against the in-process fake Ollama with zero latency, so the numbers
/// show Trove's own overhead (crawl, chunk, HTTP, JSON, SQLite), not a model's. Every configuration indexes the
/// same generated tree into a fresh index, side by side in one run; then a no-op re-index of the last one.
enum IndexBenchmark {
    static let files = Option(
        "--files", value: "N", .integer(min: 1), help: "generated notes, each with S sections: one chunk each",
        default: "10000")
    static let sections = Option("--sections", value: "S", .integer(min: 1), help: "sections per note", default: "5")
    static let corpus = Option(
        "--corpus", value: "PATH", .folder, help: "copy a real folder --copies times instead (copies reuse each "
            + "other's vectors)")
    static let copies = Option("--copies", value: "N", .integer(min: 1), help: "copies of --corpus", default: "100")
    static let dimension = Option(
        "--dimension", value: "D", .integer(min: 1), help: "dimension of the fake embeddings", default: "768")
    static let configs = Option(
        "--configs", value: "LIST", help: "batch × jobs pairs to compare", default: "64x1,64x2,16x2,256x2")
    static let stores = Option(
        "--stores", value: "LIST", help: "stores each configuration indexes into, side by side: sqlite (a fresh file), "
            + "postgres (a fresh schema of --postgres-url, else of a throwaway server from ../shared/tools/postgres)",
        default: "sqlite")
    static let postgresURL = Option(
        "--postgres-url", value: "URL", help: "the PostgreSQL server for --stores postgres (each run adds a schema)")

    static let spec = CommandSpec(
        name: "index", abstract: "indexing throughput of Corpora/ copies against the zero-latency fake Ollama",
        usage: "trove-bench index [options]",
        groups: [OptionGroup("Options", [files, sections, corpus, copies, dimension, configs, stores, postgresURL])])

    static func main(_ arguments: Arguments) async throws -> Int32 {
        let files = arguments.integer(Self.files) ?? 10_000
        let sections = arguments.integer(Self.sections) ?? 5
        let corpus = arguments.value(Self.corpus)
        let copies = arguments.integer(Self.copies) ?? 100
        let dimension = arguments.integer(Self.dimension) ?? 768
        var configs = [(64, 1), (64, 2), (16, 2), (256, 2)]
        if let text = arguments.value(Self.configs) {
            configs = try text.split(separator: ",").map { pair in
                let parts = pair.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts[0] > 0, parts[1] > 0 else {
                    throw UsageError("--configs expects batch x jobs pairs like 64x2,16x2, got '\(text)'")
                }
                return (parts[0], parts[1])
            }
        }
        let stores = (arguments.value(Self.stores) ?? "sqlite").split(separator: ",").map(String.init)
        for store in stores where store != "sqlite" && store != "postgres" {
            throw UsageError("--stores takes sqlite and postgres, got '\(store)'")
        }
        var postgres: String?
        if stores.contains("postgres") {
            // The server starts before any timing: its start is not part of a row.
            if let url = arguments.value(Self.postgresURL) { postgres = url } else { postgres = try await PostgresServer.url() }
        }
        try await run(
            files: files, sections: sections, corpus: corpus, copies: copies, dimension: dimension, configs: configs,
            stores: stores, postgres: postgres)
        return 0
    }

    static func run(
        files: Int, sections: Int, corpus: String?, copies: Int, dimension: Int, configs: [(Int, Int)],
        stores: [String] = ["sqlite"], postgres: String? = nil
    ) async throws {
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
        print(
            "| run | store | batch | jobs | files | chunks embedded | chunks stored | seconds | files/s | chunks/s "
                + "| stored/s | peak RSS MB |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        var last: [(String, any IndexBackend, IndexOptions)] = []
        for (number, (batch, jobs)) in configs.enumerated() {
            last = []
            for kind in stores {
                let location =
                    kind == "sqlite"
                    ? work.path + "/bench\(number).sqlite"
                    : try schemaURL(postgres ?? "", "bench_\(getpid())_\(number)")
                let store = try IndexLocation(location).open(createIfMissing: true)
                let options = IndexOptions(roots: [tree], batchSize: batch, jobs: jobs)
                let first = try await Indexer(store: store, embedder: embedder).run(options) { _ in }
                let stored = first.chunksEmbedded + first.chunksReused
                print(row("first index", kind, batch, jobs, first.newDocuments, first.chunksEmbedded, stored, first.seconds))
                last.append((kind, store, options))
            }
        }
        for (kind, store, options) in last {
            let again = try await Indexer(store: store, embedder: embedder).run(options) { _ in }
            print(
                row("no-op re-index", kind, options.batchSize, options.jobs, again.unchangedDocuments,
                    again.chunksEmbedded, 0, again.seconds))
        }
        print("")
        for (kind, store, _) in last {
            let stats = try store.statistics()
            print("\(kind) index size: \(String(format: "%.1f", Double(stats.bytesOnDisk) / 1e6)) MB for \(stats.chunks) chunks")
        }
    }

    /// `url` selecting the schema `name` (replacing one it names).
    static func schemaURL(_ url: String, _ name: String) throws -> String {
        guard case .postgres = IndexLocation(url) else { throw UsageError("--postgres-url expects postgresql://…, got '\(url)'") }
        var parts = url.split(separator: "?", maxSplits: 1).map(String.init)
        let query = parts.count > 1 ? parts[1].split(separator: "&").filter { !$0.hasPrefix("schema=") } : []
        parts = [parts[0], (query.map(String.init) + ["schema=" + name]).joined(separator: "&")]
        return parts.joined(separator: "?")
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

    /// chunks/s counts the chunks embedded; stored/s those stored (embedded, or reused by content hash, as the
    /// copies of one corpus are): the store's work.
    private static func row(
        _ name: String, _ store: String, _ batch: Int, _ jobs: Int, _ files: Int, _ chunks: Int, _ stored: Int,
        _ seconds: Double
    ) -> String {
        let fps = seconds > 0 ? Double(files) / seconds : 0
        let cps = seconds > 0 ? Double(chunks) / seconds : 0
        let sps = seconds > 0 ? Double(stored) / seconds : 0
        return "| \(name) | \(store) | \(batch) | \(jobs) | \(files) | \(chunks) | \(stored) | "
            + "\(String(format: "%.2f", seconds)) | \(String(format: "%.0f", fps)) | \(String(format: "%.0f", cps)) | "
            + "\(String(format: "%.0f", sps)) | "
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
