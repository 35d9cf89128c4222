import Foundation
@preconcurrency import Glibc
import Ollama
import TroveArguments
import TroveKit
import TroveServe
import TroveMiniLM
import TroveStore
import TroveTestSupport

/// `trove-bench warm`: the time `trove serve` spends on one search, measured in-process with the calls its handler
/// makes (the index's change check, the query embedding, the search, the JSON answer), the model and the vectors
/// already loaded. The socket's own round trip is not included (see `Benchmarks/bench-latency.sh` for whole processes).
enum WarmBenchmark {
    static let index = Option("--index", value: "PATH", .file, help: "the index to search (required)")
    static let query = Option(
        "--query", value: "TEXT", .text, help: "the query",
        default:
            "what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft")
    static let mode = Option(
        "--mode", value: "MODE", .choice(["hybrid", "vector", "keyword"].map { Option.Choice($0) }),
        help: "how to rank", default: "hybrid")
    static let runs = Option("--runs", value: "R", .integer(min: 1), help: "searches timed", default: "50")
    static let fakeOllama = Option(
        "--fake-ollama",
        help: "embed with an in-process fake Ollama (random vectors, no model), e.g. for `trove-bench cold`'s index")

    static let spec = CommandSpec(
        name: "warm", abstract: "the time trove serve spends on one search, in-process, model and vectors loaded",
        usage: "trove-bench warm --index PATH [options]",
        discussion: """
            Opens the index as `trove serve` does, loads its vectors and embedder once (the built-in model from the
            usual folder, or Ollama at OLLAMA_HOST), then times --runs searches of --query, each as the server
            answers one request. Prints the median, 90th percentile and minimum in milliseconds, wall and CPU time,
            then the median of each part (the query's embedding, the search with its vector given, the answer's
            JSON), each timed alone after every search.
            """,
        groups: [OptionGroup("Options", [index, query, mode, runs, fakeOllama])])

    static func main(_ arguments: Arguments) async throws -> Int32 {
        guard let index = arguments.value(Self.index) else { throw UsageError("--index PATH is required") }
        let query = arguments.value(Self.query) ?? Self.query.defaultValue ?? ""
        let mode = arguments.value(Self.mode).flatMap(SearchMode.init(rawValue:)) ?? .hybrid
        let runs = arguments.integer(Self.runs) ?? 50
        let environment = ProcessInfo.processInfo.environment
        let store = try SQLiteStore(path: index, createIfMissing: false)
        let retriever = try Retriever(store: store)
        _ = try retriever.loadedMatrix()
        let fake =
            arguments.flag(Self.fakeOllama)
            ? try FakeOllamaServer(
                models: [.embedding(retriever.manifest.model, dimension: retriever.manifest.dimension)]) : nil
        defer { fake?.stop() }
        let client = SharedClients.ollama(
            baseURL: try fake?.baseURL ?? OllamaHost.resolve(flag: nil, environment: environment),
            requestTimeout: .seconds(300), apiKey: nil)
        let embedder = try EmbedderFactory.make(
            provider: retriever.manifest.provider, model: retriever.manifest.model, client: client,
            modelFolder: ModelFolder.resolve(environment: environment))
        let request = SearchRequest(query: query, mode: mode)
        var times: [Double] = []
        var cpuTimes: [Double] = []
        // The same calls again, one at a time, after each timed search: where a warm search's time goes.
        var parts: [(name: String, times: [Double])] = []
        func part(_ name: String, _ body: () async throws -> Void) async rethrows {
            let start = now()
            try await body()
            let elapsed = (now() - start) * 1000
            if let index = parts.firstIndex(where: { $0.name == name }) {
                parts[index].times.append(elapsed)
            } else {
                parts.append((name, [elapsed]))
            }
        }
        for run in 0...runs {
            let start = now()
            let cpuStart = cpuTime()
            _ = try store.contentVersion()
            let hits = try await retriever.search(request, embedder: embedder)
            _ = try JSONEncoder().encode(SearchServer.Response(hits: hits, model: retriever.manifest.model))
            // The first search pays the model's load, which `trove serve` pays once, at its first request.
            if run > 0 {
                times.append((now() - start) * 1000)
                cpuTimes.append((cpuTime() - cpuStart) * 1000)
                var vector: [Float]?
                if mode != .keyword {
                    try await part("the query's embedding") { vector = try await retriever.embed(query: query, embedder: embedder) }
                }
                var found: [SearchHit] = []
                try await part("the search, its vector given") { found = try retriever.search(request, queryVector: vector) }
                try await part("the answer's JSON") {
                    _ = try JSONEncoder().encode(SearchServer.Response(hits: found, model: retriever.manifest.model))
                }
            }
        }
        times.sort()
        cpuTimes.sort()
        // CPU time (all threads of this process) is what other processes on a shared machine do not inflate.
        print(
            String(
                format: "%@ search inside the server, %d runs: median %.2f ms, p90 %.2f ms, min %.2f ms; "
                    + "CPU time median %.2f ms, min %.2f ms",
                mode.rawValue, runs, times[times.count / 2], times[times.count * 9 / 10], times[0],
                cpuTimes[cpuTimes.count / 2], cpuTimes[0]))
        let medians = parts.map { String(format: "%@ %.2f ms", $0.name, $0.times.sorted()[$0.times.count / 2]) }
        print("  its parts, each timed alone after every search (medians): " + medians.joined(separator: ", "))
        return 0
    }

    static func cpuTime() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
