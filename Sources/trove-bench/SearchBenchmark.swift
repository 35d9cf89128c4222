@preconcurrency import Glibc
import TroveSearch
import TroveTestSupport
import TroveBLAS
import TroveArguments

/// `trove-bench search`: single-query latency, batch throughput and a naive reference on synthetic unit vectors.
enum SearchBenchmark {
    /// Parsed command-line options.
    struct Options {
        var sizes = [10_000, 100_000]
        var dims = [384, 768]
        var queries = 200
        var batch = 100
        var k = 10
        var threads = [BLASRuntime.recommendedThreadCount]
        var seed: UInt64 = 0x7E0F_5EED
        var blockRows = VectorSearcher.defaultBlockRows
        /// Only the exact blocked scan, queries back to back per thread count, as numpy's loop runs: the interleaved
        /// variants otherwise evict the matrix from the last-level cache between two exact scans.
        var exactOnly = false
        /// The single-query scan kernels to compare, each timed at every thread count.
        var kernels = [ScanKernel.best]
    }

    static let sizes = Option("--sizes", value: "LIST", .integers(min: 1), help: "matrix rows", default: "10000,100000")
    static let dims = Option("--dims", value: "LIST", .integers(min: 1), help: "dimensions", default: "384,768")
    static let queries = Option("--queries", value: "N", .integer(min: 1), help: "timed queries", default: "200")
    static let batch = Option("--batch", value: "N", .integer(min: 1), help: "queries per sgemm batch", default: "100")
    static let k = Option("--k", value: "K", .integer(min: 1), help: "results per query", default: "10")
    static let threads = Option(
        "--threads", value: "LIST", .integers(min: 1), help: "thread counts to compare (BLAS's, the kernels' parts)",
        default: "one per CPU")
    static let blockRows = Option(
        "--block-rows", value: "N", .integer(min: 1), help: "rows scored per block",
        default: "\(VectorSearcher.defaultBlockRows)")
    static let seed = Option("--seed", value: "N", .integer(min: 0), help: "seed of the synthetic vectors")
    static let variants = Option(
        "--variants", value: "WHICH",
        .choice([
            Option.Choice("all", "every variant, interleaved query by query"),
            Option.Choice("exact", "only the exact scan, queries back to back (kernels in turn), as numpy's loop runs"),
        ]), help: "what to time", default: "all")
    static let kernel = Option(
        "--kernel", value: "WHICH",
        .choice([
            Option.Choice("best", "this CPU's widest scan kernel (what trove uses)"),
            Option.Choice("all", "every kernel this CPU runs (avx512, avx2, blas), side by side"),
            Option.Choice("avx512", "Trove's AVX-512 kernel"),
            Option.Choice("avx2", "Trove's AVX2 + FMA kernel"),
            Option.Choice("blas", "OpenBLAS's sgemv (every CPU without AVX2)"),
        ]), help: "single-query scan kernel", default: "best")

    static let spec = CommandSpec(
        name: "search", abstract: "vector search latency and throughput on synthetic data",
        usage: "trove-bench search [options]",
        discussion: """
            Ranks synthetic unit vectors (fixed seed) and prints a Markdown table to stdout:
            single-query top-k latency (p50, p95) with blocked scoring (--block-rows) and unblocked (one kernel call
            over N), effective GB/s of the matrix scan, batch throughput via sgemm, a naive Swift loop at N <= 10000,
            and the int8 scan with exact rescoring of the best k + 100 (p50, CPU ms, recall@k against exact over every
            query, and the one-time build of its copy).
            Variants run interleaved query by query so a noisy machine hits them alike; `--variants exact` times only
            the exact scan (other columns show —), with CPU ms per query beside the wall clock.
            `--kernel all` times the scan with each kernel this CPU runs (one row each, interleaved query by query).
            """,
        groups: [OptionGroup("Options", [sizes, dims, queries, batch, k, threads, blockRows, seed, variants, kernel])])

    static func main(_ arguments: Arguments) -> Int32 {
        var options = Options()
        options.sizes = arguments.integers(Self.sizes) ?? options.sizes
        options.dims = arguments.integers(Self.dims) ?? options.dims
        options.threads = arguments.integers(Self.threads) ?? options.threads
        options.queries = arguments.integer(Self.queries) ?? options.queries
        options.batch = arguments.integer(Self.batch) ?? options.batch
        options.k = arguments.integer(Self.k) ?? options.k
        options.blockRows = arguments.integer(Self.blockRows) ?? options.blockRows
        options.seed = arguments.integer(Self.seed).map { UInt64($0) } ?? options.seed
        options.exactOnly = arguments.value(Self.variants) == "exact"
        switch arguments.value(Self.kernel) ?? "best" {
        case "best": options.kernels = [.best]
        case "all": options.kernels = ScanKernel.allCases.filter(\.isAvailable)
        case let name:
            let kernel = ScanKernel(rawValue: name)!
            guard kernel.isAvailable else {
                fputs("trove-bench: this CPU cannot run the \(name) kernel; try --kernel all\n", stderr)
                return 69
            }
            options.kernels = [kernel]
        }
        run(options)
        return 0
    }

    /// One table row.
    struct Row {
        var n = 0, d = 0, threads = 0, timedQueries = 0
        var kernel = ScanKernel.best
        var p50 = 0.0, p95 = 0.0, unblockedP50 = 0.0, batchQPS = 0.0
        var naiveP50: Double?
        var int8P50 = 0.0, int8Recall = 0.0, int8CPUP50 = Double.nan
        /// Wall-clock seconds to build the int8 copy once (one pass over the matrix), and the queries its recall
        /// was measured over (every query, not only the timed ones).
        var int8Build = Double.nan, int8RecallQueries = 0
        /// CPU time of a query, every thread of the process (user + system), p50: on a busy machine the time a scan
        /// spends running, which wall clock mixes with the time it waits for a core.
        var cpuP50 = Double.nan
    }

    static func run(_ options: Options) {
        fputs("load average before: \(loadAverage())\n", stderr)
        if BLASRuntime.isSlowKernel {
            fputs("warning: OpenBLAS runs its Prescott (SSE3) kernel on an AVX2 CPU: \(BLASRuntime.configuration)\n", stderr)
        }
        var rows: [Row] = []
        for n in options.sizes {
            for d in options.dims {
                fputs("generating \(n) × \(d) …\n", stderr)
                var rng = SplitMix64(seed: options.seed &+ UInt64(n * 1_000 + d))
                let matrix = VectorMatrix(
                    dimension: d, rowIDs: (0..<n).map(Int64.init), values: rng.unitRows(n, dimension: d))
                let searcher = VectorSearcher(matrix: matrix)
                let queries = (0..<max(options.queries, options.batch)).map { _ in rng.unitRows(1, dimension: d) }
                rows += measure(searcher, queries: queries, options: options)
            }
        }
        let loadAfter = loadAverage()
        fputs("load average after: \(loadAfter)\n", stderr)
        printTable(rows, options: options, load: loadAfter)
    }

    /// Each kernel at each thread count: what one table row measures.
    static func configurations(_ options: Options) -> [(kernel: ScanKernel, threads: Int)] {
        options.kernels.flatMap { kernel in options.threads.map { (kernel, $0) } }
    }

    /// Measures one matrix for every kernel and thread count, interleaving variants query by query.
    static func measure(_ searcher: VectorSearcher, queries: [[Float]], options: Options) -> [Row] {
        let n = searcher.matrix.count
        let d = searcher.matrix.dimension
        let k = options.k
        var sink = 0.0  // keeps results alive so nothing is optimized away

        // Warm-up also sizes the run: at most ~6 s of single queries per thread count.
        BLASRuntime.setThreadCount(options.threads[0])
        let warm = time { for q in queries.prefix(5) { sink += Double(searcher.search(query: q, k: k)[0].score) } } / 5
        let timed = min(options.queries, max(15, Int(6 / max(warm, 1e-9) / 2)))
        if options.exactOnly { return measureExact(searcher, queries: queries, timed: timed, options: options) }
        let withNaive = n <= 10_000

        let configurations = configurations(options)
        var blocked = Array(repeating: [Double](), count: configurations.count)
        var unblocked = blocked
        var naive: [Double] = []
        // The int8 scan (one thread) with exact rescoring: the copy's one-time build, and its recall against
        // exact over every query (untimed), then its time interleaved with the exact scan's.
        var quantized: QuantizedSearcher?
        let int8Build = time { quantized = QuantizedSearcher(matrix: searcher.matrix) }
        var int8Agreed = 0
        var int8Total = 0
        for q in queries {
            let exact = searcher.search(query: q, k: k)
            int8Agreed += Set(exact.map(\.id)).intersection(quantized!.search(query: q, k: k).map(\.id)).count
            int8Total += exact.count
        }
        var int8Times: [Double] = []
        var int8CPUTimes: [Double] = []
        var cpuTimes = Array(repeating: [Double](), count: configurations.count)
        for i in 0..<timed {
            let q = queries[i % queries.count]
            let int8CPU = cpuSeconds()
            int8Times.append(time { sink += Double(quantized!.search(query: q, k: k)[0].score) })
            int8CPUTimes.append(cpuSeconds() - int8CPU)
            for (c, (kernel, threads)) in configurations.enumerated() {
                BLASRuntime.setThreadCount(threads)
                let cpuBefore = cpuSeconds()
                blocked[c].append(
                    time {
                        sink += Double(
                            searcher.rank(
                                query: q, k: k, minScore: -.infinity, allowed: nil, blockRows: options.blockRows,
                                kernel: kernel, threads: threads)[0].score)
                    })
                cpuTimes[c].append(cpuSeconds() - cpuBefore)
                unblocked[c].append(
                    time {
                        sink += Double(
                            searcher.rank(
                                query: q, k: k, minScore: -.infinity, allowed: nil, blockRows: .max, kernel: kernel,
                                threads: threads)[0].score)
                    })
            }
            if withNaive { naive.append(time { sink += Double(naiveSearch(searcher.matrix, q, k: k)[0].score) }) }
        }

        // The sgemm batch does not depend on the scan kernel: timed once per thread count.
        var batchQPS: [Int: Double] = [:]
        for threads in options.threads {
            BLASRuntime.setThreadCount(threads)
            let batch = Array(queries.prefix(options.batch))
            _ = searcher.search(queries: batch, k: k)
            let repeats = max(3, min(10, Int(3 / max(time { _ = searcher.search(queries: batch, k: k) }, 1e-9))))
            var batchTimes: [Double] = []
            for _ in 0..<repeats {
                batchTimes.append(time { sink += Double(searcher.search(queries: batch, k: k)[0][0].score) })
            }
            batchQPS[threads] = Double(batch.count) / percentile(batchTimes, 0.5)
        }
        var result: [Row] = []
        for (c, (kernel, threads)) in configurations.enumerated() {
            var row = Row(n: n, d: d, threads: threads, timedQueries: timed, kernel: kernel)
            row.p50 = percentile(blocked[c], 0.5)
            row.p95 = percentile(blocked[c], 0.95)
            row.unblockedP50 = percentile(unblocked[c], 0.5)
            row.batchQPS = batchQPS[threads]!
            row.naiveP50 = withNaive ? percentile(naive, 0.5) : nil
            row.int8P50 = percentile(int8Times, 0.5)
            row.int8CPUP50 = percentile(int8CPUTimes, 0.5)
            row.int8Recall = Double(int8Agreed) / Double(max(1, int8Total))
            row.int8RecallQueries = queries.count
            row.int8Build = int8Build
            row.cpuP50 = percentile(cpuTimes[c], 0.5)
            result.append(row)
        }
        BLASRuntime.setThreadCount(options.threads[0])
        if sink.isNaN { fputs("", stderr) }
        return result
    }

    /// The exact blocked scan alone, `timed` queries, each run by every kernel and thread count in turn: they scan
    /// the same matrix, so none evicts another's data, and a noisy machine hits them alike.
    static func measureExact(_ searcher: VectorSearcher, queries: [[Float]], timed: Int, options: Options) -> [Row] {
        var sink: Float = 0
        let configurations = configurations(options)
        var times = Array(repeating: [Double](), count: configurations.count)
        var cpuTimes = times
        for i in 0..<timed {
            for (c, (kernel, threads)) in configurations.enumerated() {
                BLASRuntime.setThreadCount(threads)
                let cpuBefore = cpuSeconds()
                times[c].append(
                    time {
                        sink += searcher.rank(
                            query: queries[i % queries.count], k: options.k, minScore: -.infinity, allowed: nil,
                            blockRows: options.blockRows, kernel: kernel, threads: threads)[0].score
                    })
                cpuTimes[c].append(cpuSeconds() - cpuBefore)
            }
        }
        let rows = configurations.indices.map { c in
            let (kernel, threads) = configurations[c]
            let times = times[c]
            var row = Row(
                n: searcher.matrix.count, d: searcher.matrix.dimension, threads: threads, timedQueries: timed,
                kernel: kernel)
            row.p50 = percentile(times, 0.5)
            row.p95 = percentile(times, 0.95)
            row.unblockedP50 = .nan
            row.batchQPS = .nan
            row.int8P50 = .nan
            row.int8Recall = .nan
            row.cpuP50 = percentile(cpuTimes[c], 0.5)
            return row
        }
        BLASRuntime.setThreadCount(options.threads[0])
        if sink.isNaN { fputs("", stderr) }
        return rows
    }

    /// The scalar Swift reference: score every row in a plain loop, sort all of them.
    static func naiveSearch(_ matrix: VectorMatrix, _ query: [Float], k: Int) -> [ScoredRow] {
        let d = matrix.dimension
        var all = [ScoredRow]()
        all.reserveCapacity(matrix.count)
        matrix.withUnsafeValues { values in
            for row in 0..<matrix.count {
                var sum: Float = 0
                for j in 0..<d { sum += values[row * d + j] * query[j] }
                all.append(ScoredRow(id: matrix.rowIDs[row], score: sum))
            }
        }
        all.sort { $0.ranks(before: $1) }
        return Array(all.prefix(k))
    }

    static func printTable(_ rows: [Row], options: Options, load: String) {
        print(
            "| N | d | matrix MB | kernel | threads | queries | top-\(options.k) p50 ms | p95 ms | GB/s at p50 "
                + "| unblocked p50 ms | batch \(options.batch) q/s (sgemm) | single q/s (1/p50) | naive Swift p50 ms "
                + "| int8+rescore p50 ms | int8 recall@\(options.k) (queries) | CPU ms p50 | int8 CPU ms p50 "
                + "| int8 copy build ms |")
        print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows {
            let bytes = Double(r.n * r.d * 4)
            let naive = r.naiveP50.map { fmt($0 * 1e3, 2) } ?? "—"
            print(
                "| \(r.n) | \(r.d) | \(fmt(bytes / 1e6, 1)) | \(r.kernel) | \(r.threads) | \(r.timedQueries) "
                    + "| \(fmt(r.p50 * 1e3, 3)) "
                    + "| \(fmt(r.p95 * 1e3, 3)) | \(fmt(bytes / r.p50 / 1e9, 1)) | \(fmt(r.unblockedP50 * 1e3, 3)) "
                    + "| \(fmt(r.batchQPS, 0)) | \(fmt(1 / r.p50, 0)) | \(naive) | \(fmt(r.int8P50 * 1e3, 3)) "
                    + "| \(fmt(r.int8Recall, 4)) (\(r.int8RecallQueries)) | \(fmt(r.cpuP50 * 1e3, 3)) "
                    + "| \(fmt(r.int8CPUP50 * 1e3, 3)) | \(fmt(r.int8Build * 1e3, 1)) |")
        }
        print("")
        print(
            "seed \(options.seed); \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs online; load average \(load); "
                + "\(BLASRuntime.configuration); scan kernel for this CPU: \(ScanKernel.best)")
    }

    static func time(_ body: () -> Void) -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        body()
        clock_gettime(CLOCK_MONOTONIC, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    /// User + system CPU seconds of every thread of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let seconds = { (t: timeval) in Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// `value` with `digits` decimals (Foundation-free, so the bench stays on TroveSearch and Glibc).
    static func fmt(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "—" : "\(value)" }
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard digits > 0 else { return sign + "\(scaled)" }
        let fraction = String(scaled % scale)
        return sign + "\(scaled / scale)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    static func loadAverage() -> String {
        guard let file = fopen("/proc/loadavg", "r") else { return "unknown" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, 128, file) != nil else { return "unknown" }
        let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self).split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// Reproducible synthetic vectors from the shared seeded generator.
extension SplitMix64 {
    /// `count` rows of uniform [-1, 1) values, each scaled to unit length, row-major.
    mutating func unitRows(_ count: Int, dimension: Int) -> [Float] {
        var values = [Float](repeating: 0, count: count * dimension)
        values.withUnsafeMutableBufferPointer { values in
            for row in 0..<count {
                var sum: Float = 0
                for j in 0..<dimension {
                    let x = Float(next() >> 40) / Float(1 << 23) - 1
                    values[row * dimension + j] = x
                    sum += x * x
                }
                let scale = sum > 0 ? 1 / sum.squareRoot() : 0
                for j in 0..<dimension { values[row * dimension + j] *= scale }
            }
        }
        return values
    }
}
