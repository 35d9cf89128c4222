import Foundation
import Ollama
import TroveArguments
import TroveKit
import TroveStore
import TroveTestSupport

/// `trove-bench status`: what `trove status`'s freshness walk costs beside what status cost before it (the store's
/// counts) and a no-op `trove index` of the same tree, side by side in one run, at each size of generated notes.
enum StatusBenchmark {
    static let sizes = Option(
        "--sizes", value: "LIST", help: "numbers of generated notes, one tree and index each", default: "10000,100000")
    static let runs = Option(
        "--runs", value: "N", .integer(min: 1), help: "timed runs of each, median shown", default: "5")

    static let spec = CommandSpec(
        name: "status", abstract: "trove status's freshness walk against the status counts and a no-op re-index",
        usage: "trove-bench status [options]", groups: [OptionGroup("Options", [sizes, runs])])

    static func main(_ arguments: Arguments) async throws -> Int32 {
        let sizes = try (arguments.value(Self.sizes) ?? "10000,100000").split(separator: ",").map { text in
            guard let size = Int(text), size > 0 else { throw UsageError("--sizes expects numbers like 10000,100000") }
            return size
        }
        let runs = arguments.integer(Self.runs) ?? 5
        print("trove status on generated notes (one section each, 100 per folder); median of \(runs) runs, seconds")
        print("")
        print("| files | status counts | freshness walk | walk partial | no-op trove index | walk / no-op index |")
        print("|---:|---:|---:|:---:|---:|---:|")
        for size in sizes { try await measure(files: size, runs: runs) }
        return 0
    }

    static func measure(files: Int, runs: Int) async throws {
        let work = try TemporaryDirectory()
        let tree = work.path + "/tree"
        try IndexBenchmark.generate(files: files, sections: 1, into: tree)
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text", dimension: 8)])
        defer { server.stop() }
        let client = OllamaClient(baseURL: server.baseURL)
        let location = IndexLocation(work.path + "/index.sqlite")
        let store = try location.open(createIfMissing: true)
        let options = IndexOptions(roots: [tree], batchSize: 256, jobs: 2)
        let embedder = OllamaEmbedder(client: client, model: "nomic-embed-text")
        _ = try await Indexer(store: store, embedder: embedder).run(options) { _ in }
        let index = try TroveIndex(
            opening: TroveConfiguration(location: location, ollama: client, modelFolder: "/none"))
        var counts: [Double] = []
        var walks: [Double] = []
        var noops: [Double] = []
        var partial = false
        // Interleaved, so load on the shared machine falls on all three alike.
        for _ in 0..<runs {
            counts.append(try await seconds { _ = try await index.status() })
            walks.append(
                try await seconds {
                    let folders = try await index.freshness()
                    partial = partial || folders.contains { $0.partial }
                    guard folders.allSatisfy({ $0.partial || $0.isCurrent }) else {
                        throw UsageError("the freshness walk found changes in an untouched tree: \(folders)")
                    }
                })
            noops.append(
                try await seconds { _ = try await Indexer(store: store, embedder: embedder).run(options) { _ in } })
        }
        let walk = median(walks)
        let noop = median(noops)
        print(
            "| \(files) | \(format(median(counts))) | \(format(walk)) | \(partial ? "yes" : "no") | \(format(noop)) | "
                + "\(String(format: "%.2f", walk / noop)) |")
    }

    static func seconds(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        return (ContinuousClock.now - start).seconds
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}
