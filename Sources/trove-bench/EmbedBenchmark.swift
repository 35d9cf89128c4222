@preconcurrency import Glibc
import Foundation
import TroveArguments
import TroveMiniLM
import TroveBLAS

/// `trove-bench embed`: the built-in MiniLM's throughput on ~200-token chunks, single-query latency, and the share
/// of this machine's sgemm ceiling it reaches and of its own products' rate in that precision alone (the most a batch
/// could run at: `MiniLM.productCeiling`), all measured in one run; `--compare FILE` checks vectors against a
/// reference (`[{"text", "vector"}]`, e.g. from Benchmarks/bench-embed.sh).
enum EmbedBenchmark {
    static let dataset = Option(
        "--dataset", value: "DIR", .folder, help: "where the chunks' text comes from",
        default: "../shared/datasets/cranfield")
    static let n = Option("--n", value: "CHUNKS", .integer(min: 1), help: "chunks to embed", default: "160")
    static let tokens = Option("--tokens", value: "T", .integer(min: 1), help: "tokens per chunk", default: "200")
    static let batch = Option("--batch", value: "B", .integer(min: 1), help: "chunks per encoder call", default: "32")
    static let threads = Option(
        "--threads", value: "LIST", .integers(min: 1), help: "thread counts to compare", default: "1,2")
    static let repeats = Option(
        "--repeat", value: "R", .integer(min: 1), help: "alternating runs; the best counts", default: "3")
    static let modelFolder = Option(
        "--model-folder", value: "DIR", .folder, help: "the model's files", default: "$TROVE_MODELS/all-minilm-l6-v2")
    static let compare = Option(
        "--compare", value: "FILE", .file, help: "check vectors against a reference [{\"text\", \"vector\"}] instead")
    static let rowLoops = Option(
        "--row-loops", value: "BUILD", .choice(builds.map { Option.Choice($0.word, $0.build.rawValue) }),
        help: "another build of the row loops than the widest this CPU runs, to measure what the wide ones gain")

    static let idsOut = Option(
        "--ids-out", value: "FILE", .text,
        help: "write the chunks' token ids (JSON, one array per chunk) and stop: the same chunks for another encoder")
    static let precisions = Option(
        "--precision", value: "LIST", .text,
        help: "products of the chunk batches, compared side by side: fp32, bf16, int8, int16, auto (this CPU's default), or all",
        default: "fp32,auto")

    /// The builds of the row loops, by the word --row-loops takes.
    static let builds: [(word: String, build: Kernels.Build)] = [("baseline", .baseline), ("avx2", .avx2), ("avx512", .avx512)]

    static let spec = CommandSpec(
        name: "embed", abstract: "built-in MiniLM: chunks/s, query latency, share of the sgemm ceiling and of its products alone",
        usage: "trove-bench embed [options]",
        groups: [
            OptionGroup(
                "Options",
                [dataset, n, tokens, batch, threads, repeats, modelFolder, compare, rowLoops, precisions, idsOut])
        ])

    static func main(_ arguments: Arguments) async throws -> Int32 {
        try run(arguments)
        return 0
    }

    static func run(_ arguments: Arguments) throws {
        // The shared datasets sit beside the repository, or beside its worktrees' folder.
        let dataset = arguments.value(Self.dataset) ?? ["../shared/datasets/cranfield", "../../shared/datasets/cranfield"].first {
            FileManager.default.fileExists(atPath: $0)
        } ?? "../shared/datasets/cranfield"
        let count = arguments.integer(Self.n) ?? 160
        let tokens = arguments.integer(Self.tokens) ?? 200
        let batch = arguments.integer(Self.batch) ?? 32
        let threadCounts = arguments.integers(Self.threads) ?? [1, 2]
        let folder = arguments.value(Self.modelFolder) ?? ModelFolder.resolve(environment: ProcessInfo.processInfo.environment)
        let compare = arguments.value(Self.compare)
        let repeats = arguments.integer(Self.repeats) ?? 3
        var rowLoops = Kernels.build
        if let word = arguments.value(Self.rowLoops), let build = builds.first(where: { $0.word == word })?.build {
            guard build.isSupported else { throw UsageError("--row-loops \(word): this CPU cannot run that build") }
            rowLoops = build
        }
        let precisions = try parsePrecisions(arguments.value(Self.precisions) ?? "fp32,auto")
        let model = try MiniLM(folder: folder, rowKernels: rowLoops)
        if let compare { return try compareVectors(model, reference: compare, precisions: precisions) }
        let chunks = try makeChunks(model.tokenizer, dataset: dataset, count: count, tokens: tokens)
        let ids = chunks.map { model.tokenizer.encode($0) }
        if let path = arguments.value(Self.idsOut) {
            let rows = ids.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }
            let json = "[" + rows.joined(separator: ",\n") + "]\n"
            try json.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        try printLoadTimes(folder: folder)
        let meanTokens = Double(ids.map(\.count).reduce(0, +)) / Double(ids.count)
        let flopsPerChunk = ids.map(flops).reduce(0, +) / Double(ids.count)
        print(
            "\(chunks.count) chunks of \(dataset), mean \(String(format: "%.0f", meanTokens)) tokens "
                + "(\(String(format: "%.1f", flopsPerChunk / meanTokens / 1e6)) MFLOP/token); "
                + "OpenBLAS kernel \(BLASRuntime.kernel); row loops \(model.rowKernels.rawValue); load average \(loadAverage())")
        // Warm-up: page in the weights, and make or map each packed copy.
        for precision in precisions {
            _ = try model.embed(tokens: Array(ids.prefix(4)), threads: 1, precision: precision)
        }
        for threads in threadCounts {
            try measure(
                model, ids: ids, threads: threads, precisions: precisions, batch: batch, repeats: repeats,
                flopsPerChunk: flopsPerChunk)
        }
    }

    /// One line per precision at `threads` threads; the precisions, the sgemm ceiling and each precision's products'
    /// ceiling take turns `repeats` times.
    static func measure(
        _ model: MiniLM, ids: [[Int32]], threads: Int, precisions: [Precision], batch: Int, repeats: Int,
        flopsPerChunk: Double
    ) throws {
        // Ceiling and throughput alternate `repeats` times and the best of each counts: other processes on the
        // machine only ever slow a run down, so the best run is the closest to what the code itself does.
        var ceilings: [Double] = []
        var cpuCeilings: [Double] = []
        var productCeilings = [Double](repeating: 0, count: precisions.count)
        var rates = [[Double]](repeating: [], count: precisions.count)
        var cpuRates = [[Double]](repeating: [], count: precisions.count)
        for _ in 0..<repeats {
            let probe = BLASProbe.ceiling(threads: threads)
            ceilings.append(probe.wall)
            cpuCeilings.append(probe.cpu)
            for (slot, precision) in precisions.enumerated() {
                productCeilings[slot] = max(productCeilings[slot], model.productCeiling(precision, threads: threads).cpu)
                let start = now()
                let cpuStart = cpuTime()
                var done = 0
                while done < ids.count {
                    let end = min(ids.count, done + batch)
                    _ = try model.embed(tokens: Array(ids[done..<end]), threads: threads, precision: precision)
                    done = end
                }
                rates[slot].append(Double(ids.count) / (now() - start))
                cpuRates[slot].append(Double(ids.count) / (cpuTime() - cpuStart) * Double(threads))
            }
        }
        var latencies: [Double] = []
        for _ in 0..<15 {
            let t = now()
            _ = model.embed(["how does the boundary layer behave behind a swept wing?"], threads: threads)
            latencies.append(now() - t)
        }
        latencies.sort()
        let ceiling = ceilings.max()!
        for (slot, precision) in precisions.enumerated() {
            let rates = rates[slot], cpuRates = cpuRates[slot]
            let rate = rates.max()!
            let medianRate = rates.sorted()[rates.count / 2]
            let cpuRate = cpuRates.max()!
            let cpuShare = 100 * cpuRate * flopsPerChunk / 1e9 / cpuCeilings.max()!
            let gflops = rate * flopsPerChunk / 1e9
            print(
                "\(precision.rawValue), threads \(threads): \(String(format: "%.1f", rate)) chunks/s (best of \(repeats), median "
                    + "\(String(format: "%.1f", medianRate)); \(String(format: "%.1f", cpuRate)) per \(threads) CPU-seconds = \(String(format: "%.0f", cpuShare))% of the ceiling in CPU time), "
                    + "\(String(format: "%.1f", gflops)) GFLOP/s = \(String(format: "%.0f", 100 * gflops / ceiling))% "
                    + "of the sgemm ceiling \(String(format: "%.1f", ceiling)) GFLOP/s (best of \(repeats)); "
                    + "per CPU-second \(String(format: "%.0f", 100 * cpuRate * flopsPerChunk / 1e9 / productCeilings[slot]))% of "
                    + "its products alone, \(String(format: "%.1f", productCeilings[slot])) GFLOP/s; "
                    + "query latency p50 \(String(format: "%.1f", latencies[7] * 1000)) ms, "
                    + "min \(String(format: "%.1f", latencies[0] * 1000)) ms; load average \(loadAverage())")
        }
    }

    /// `--precision`'s list: each of fp32, bf16, int8, int16 or auto (this CPU's default), which this CPU must run;
    /// or `all`, every one it runs.
    static func parsePrecisions(_ list: String) throws -> [Precision] {
        if list == "all" { return Precision.allCases.filter(\.isSupported) }
        return try list.split(separator: ",").map { word in
            let word = word.trimmingCharacters(in: .whitespaces)
            guard let precision = word == "auto" ? Precision.automatic : Precision(rawValue: word) else {
                throw UsageError("--precision \(word): give fp32, bf16, int8, int16 or auto, e.g. --precision fp32,bf16")
            }
            guard precision.isSupported else {
                throw UsageError("--precision \(word): this CPU lacks the instructions — use fp32")
            }
            return precision
        }
    }

    /// What loading costs once the files are in the page cache, best of 5: the vocabulary, the whole model with its
    /// weights mapped from the cache, and with them re-laid out in memory (what every process paid before the cache).
    static func printLoadTimes(folder: String) throws {
        /// Best wall and best CPU time of this thread (loading is single-threaded), in ms.
        func best(_ body: () throws -> Void) rethrows -> String {
            var walls: [Double] = []
            var cpus: [Double] = []
            for _ in 0..<5 {
                var cpuStart = timespec()
                var cpuEnd = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuStart)
                let start = now()
                try body()
                walls.append((now() - start) * 1000)
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuEnd)
                cpus.append(Double(cpuEnd.tv_sec - cpuStart.tv_sec) * 1000 + Double(cpuEnd.tv_nsec - cpuStart.tv_nsec) / 1e6)
            }
            return String(format: "%.2f ms (CPU %.2f ms)", walls.min()!, cpus.min()!)
        }
        let vocabulary = try best { _ = try WordPieceTokenizer(vocabularyFile: folder + "/vocab.txt") }
        var how = ""
        let mapped = try best { how = try MiniLM(folder: folder).weightsLoad.rawValue }
        let inMemory = try best { _ = try MiniLM(folder: folder, cachesWeights: false) }
        print("load, best of 5: vocab.txt \(vocabulary); model with weights \(how) \(mapped); re-laid out in memory \(inMemory)")
    }

    /// FLOPs of one sequence of n tokens: six layers of projections, feed-forward and attention.
    static func flops(_ ids: [Int32]) -> Double {
        let n = Double(ids.count), d = 384.0, f = 1536.0
        return 6 * (2 * n * (4 * d * d + 2 * d * f) + 2 * 2 * n * n * d)
    }

    /// Chunks of about `tokens` word pieces cut at word boundaries from the dataset's documents.
    static func makeChunks(_ tokenizer: WordPieceTokenizer, dataset: String, count: Int, tokens: Int) throws -> [String] {
        let docs = dataset + "/docs"
        let names = try FileManager.default.contentsOfDirectory(atPath: docs).sorted {
            (Int($0.split(separator: ".")[0]) ?? 0) < (Int($1.split(separator: ".")[0]) ?? 0)
        }
        var chunks: [String] = []
        var words: [Substring] = []
        var pieces = 0
        for name in names {
            let text = try String(contentsOfFile: docs + "/" + name, encoding: .utf8)
            for word in text.split(whereSeparator: \.isWhitespace) {
                let cost = tokenizer.encode(String(word)).count - 2
                if pieces + cost > tokens - 2, !words.isEmpty {
                    chunks.append(words.joined(separator: " "))
                    if chunks.count == count { return chunks }
                    words.removeAll()
                    pieces = 0
                }
                words.append(word)
                pieces += cost
            }
        }
        return chunks
    }

    static func compareVectors(_ model: MiniLM, reference path: String, precisions: [Precision]) throws {
        struct Item: Decodable {
            var text: String
            var vector: [Float]
        }
        let items = try JSONDecoder().decode([Item].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        for precision in precisions {
        let vectors = model.embed(items.map(\.text), precision: precision)
        var cosines: [Double] = []
        for (item, vector) in zip(items, vectors) {
            var dot = 0.0
            for (a, b) in zip(item.vector, vector) { dot += Double(a) * Double(b) }
            cosines.append(dot)
        }
        cosines.sort()
        let mean = cosines.reduce(0, +) / Double(max(cosines.count, 1))
        print(
            "\(precision.rawValue): \(cosines.count) vectors vs \(path): cosine min \(String(format: "%.6f", cosines.first ?? 0)), "
                + "median \(String(format: "%.6f", cosines[cosines.count / 2])), mean \(String(format: "%.6f", mean)); "
                + "below 0.999: \(cosines.filter { $0 < 0.999 }.count)")
        }
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// CPU seconds this process has used, all threads: unlike wall time, not inflated by other processes' load.
    static func cpuTime() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func loadAverage() -> String {
        var loads = [Double](repeating: 0, count: 3)
        _ = getloadavg(&loads, 3)
        return String(format: "%.2f", loads[0])
    }
}
