@preconcurrency import Glibc
import Foundation
import TroveArguments
import TroveSearch
import TroveStore
import TroveTestSupport

/// `trove-bench cold`: fresh-process `trove search` latency on a synthetic index, with and without the flat vector
/// cache, against a zero-latency fake Ollama so the query embedding costs one loopback round trip.
enum ColdBenchmark {
    static let n = Option("--n", value: "N", .integer(min: 1), help: "vectors in the synthetic index", default: "100000")
    static let d = Option("--d", value: "D", .integer(min: 1), help: "floats per vector", default: "768")
    static let runs = Option("--runs", value: "R", .integer(min: 1), help: "runs per row (the median is shown)", default: "7")
    static let trove = Option("--trove", value: "PATH", .file, help: "a release build of trove (required)")
    static let vectorLoad = Option(
        "--vector-load", value: "HOW", .choice(VectorCache.LoadMode.allCases.map { Option.Choice($0.rawValue) }),
        help: "how trove search reads the vector cache (passed on as its hidden --vector-load)", default: "map")
    static let baseline = Option(
        "--baseline", value: "PATH", .file,
        help: "another trove build, timed in turn with --trove (run by run) in the flat-cache and trove serve rows")
    static let cachedOnly = Option(
        "--cached-only", help: "only the flat-cache and trove serve rows (no BLOB or page-cache-evicted rows)")
    static let index = Option(
        "--index", value: "PATH", .file, help: "where the synthetic index is built or reused",
        default: "a file in the temporary folder")

    static let spec = CommandSpec(
        name: "cold", abstract: "fresh-process trove search latency on a synthetic index, with and without the cache",
        usage: "trove-bench cold --trove PATH [options]",
        discussion: """
            Builds (or reuses) a synthetic index of N unit vectors of d floats (fixed seed, 10 chunks per document),
            then times `trove search` as a fresh process, start to exit, median of --runs: vector and hybrid mode,
            with the flat cache (INDEX.vectors), without it (one BLOB per row), with the cache file not in the page
            cache (a fresh copy written with O_DIRECT before each run), and answered by a running `trove serve`.
            With --baseline, each flat-cache and serve run of --trove is followed by one of the baseline, so both
            see the same load. Prints a Markdown table.
            """,
        groups: [OptionGroup("Options", [trove, baseline, cachedOnly, n, d, runs, index, vectorLoad])])

    static func main(_ arguments: Arguments) async throws -> Int32 {
        let n = arguments.integer(Self.n) ?? 100_000
        let d = arguments.integer(Self.d) ?? 768
        let runs = arguments.integer(Self.runs) ?? 7
        let index = arguments.value(Self.index)
        // Passed to the cold searches only: a search with another load path than the default skips `trove serve`.
        let load = arguments.value(Self.vectorLoad).map { ["--vector-load", $0] } ?? []
        guard let trove = arguments.value(Self.trove) else {
            throw UsageError("--trove PATH (a release build of trove) is required")
        }
        let path = index ?? NSTemporaryDirectory() + "/trove-cold-\(n)x\(d).sqlite"
        do {
            try build(path, n: n, d: d)
            let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text", dimension: d)])
            defer { server.stop() }
            let builds = [("", trove)] + (arguments.value(Self.baseline).map { [(" (baseline)", $0)] } ?? [])
            let cachedOnly = arguments.flag(Self.cachedOnly)
            print("| N × d | mode | vectors from | median ms | min ms | CPU median ms |")
            print("|---|---|---|---|---|---|")
            func row(_ mode: String, _ label: String, _ timings: [Timing]) {
                let wall = timings.map(\.wall).sorted()
                let cpu = timings.map(\.cpu).sorted()
                print(
                    "| \(n) × \(d) | \(mode) | \(label) | \(Int(wall[wall.count / 2])) | \(Int(wall[0])) | "
                        + "\(Int(cpu[cpu.count / 2])) |")
                fflush(stdout)
            }
            /// `runs` runs of each build in turn; one row per build.
            func rows(_ label: String, mode: String, extra: [String], prepare: () throws -> Void = {}) throws {
                var timings = Array(repeating: [Timing](), count: builds.count)
                for _ in 0..<runs {
                    for (index, build) in builds.enumerated() {
                        try prepare()
                        timings[index].append(
                            try timeSearch(build.1, index: path, mode: mode, server: server, extra: extra))
                    }
                }
                for (index, build) in builds.enumerated() { row(mode + build.0, label, timings[index]) }
            }
            for mode in ["vector", "hybrid"] {
                try rows("flat cache", mode: mode, extra: load)
                guard !cachedOnly else { continue }
                var timings: [Timing] = []
                for _ in 0..<runs {
                    unlink(path + ".vectors")
                    timings.append(try timeSearch(trove, index: path, mode: mode, server: server, extra: load))
                }
                row(mode, "SQLite BLOB per row", timings)
                // Leave the cache in place for the next cached rows.
                _ = try timeSearch(trove, index: path, mode: mode, server: server, extra: load)
                // The cache file not in the page cache: a fresh copy written with O_DIRECT (which leaves no pages
                // cached) renamed over it before each run. Nothing else is evicted.
                try rows("flat cache, not in page cache", mode: mode, extra: load) {
                    try freshUncachedCopy(path + ".vectors")
                }
            }
            // The same searches answered by a running `trove serve` (vectors already in its memory), one server per
            // build; CPU time is the client's and the server's together.
            for build in builds {
                let serve = try startServe(build.1, index: path, server: server)
                defer {
                    serve.terminate()
                    serve.waitUntilExit()
                    // The next build's server must not find this one's socket.
                    unlink(path + ".sock")
                }
                for mode in ["vector", "hybrid"] {
                    let pid = serve.processIdentifier
                    _ = try timeSearch(build.1, index: path, mode: mode, server: server, alsoCounting: pid)
                    let timings = try (0..<runs).map { _ in
                        try timeSearch(build.1, index: path, mode: mode, server: server, alsoCounting: pid)
                    }
                    row(mode + build.0, "trove serve (warm)", timings)
                }
            }
            return 0
        } catch {
            fputs("Error: \(error)\n", stderr)
            return 1
        }
    }

    /// `trove serve` for `index` started and answering (its socket in place).
    static func startServe(_ trove: String, index: String, server: FakeOllamaServer) throws -> Process {
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: trove)
        serve.arguments = ["serve", "--index", index]
        var environment = ProcessInfo.processInfo.environment
        environment["OLLAMA_HOST"] = server.baseURL.absoluteString
        serve.environment = environment
        serve.standardError = FileHandle.nullDevice
        try serve.run()
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: index + ".sock") { usleep(50_000) }
        return serve
    }

    /// Writes the synthetic index unless a file of that name already holds N vectors.
    static func build(_ path: String, n: Int, d: Int) throws {
        if FileManager.default.fileExists(atPath: path) {
            let store = try SQLiteStore(path: path, createIfMissing: false)
            if try store.statistics().vectors == n { return }
            unlink(path)
        }
        fputs("building \(path): \(n) × \(d) …\n", stderr)
        let store = try SQLiteStore(path: path, createIfMissing: true)
        try store.writeManifest(
            IndexManifest(
                provider: .ollama, model: "nomic-embed-text", modelDigest: nil, dimension: d, chunkerVersion: 1,
                chunkerParameters: "synthetic", queryPrefix: "search_query: ", documentPrefix: "search_document: "))
        let root = try store.rootID(forPath: "/synthetic")
        var rng = SplitMix64(seed: 0xC01D)
        let perDocument = 10
        var written = 0
        while written < n {
            try store.inTransaction {
                for _ in 0..<500 where written < n {
                    let count = min(perDocument, n - written)
                    let values = rng.unitRows(count, dimension: d)
                    let chunks = (0..<count).map { ordinal in
                        NewChunk(
                            ordinal: ordinal, startLine: ordinal + 1, endLine: ordinal + 1, heading: "",
                            text: "passage \(written + ordinal) about topic \((written + ordinal) % 997)",
                            contentHash: "h\(written + ordinal)",
                            vector: Array(values[(ordinal * d)..<((ordinal + 1) * d)]))
                    }
                    try store.replaceDocument(
                        NewDocument(
                            rootID: root, path: "doc\(written / perDocument).txt", size: 1,
                            modifiedNanoseconds: 0, contentHash: "x"),
                        chunks: chunks)
                    written += count
                }
            }
        }
        try store.checkpoint()
    }

    /// Replaces `file` by a copy written with `dd oflag=direct`, so none of its pages are in the page cache.
    static func freshUncachedCopy(_ file: String) throws {
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/bin/dd")
        copy.arguments = ["if=\(file)", "of=\(file).cold", "bs=4M", "oflag=direct", "status=none"]
        try copy.run()
        copy.waitUntilExit()
        guard copy.terminationStatus == 0, chmod(file + ".cold", 0o600) == 0, rename(file + ".cold", file) == 0 else {
            throw NSError(domain: "could not write an uncached copy of \(file)", code: 1)
        }
    }

    /// One search's wall time and CPU time (user + system), in milliseconds.
    struct Timing {
        var wall: Double
        var cpu: Double
    }

    /// CPU seconds of the children this process has waited for.
    static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU seconds a running process's threads have used so far (the first field of each
    /// /proc/PID/task/TID/schedstat, in nanoseconds; /proc/PID/stat counts in 10 ms ticks).
    static func processCPU(_ pid: Int32) -> Double {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
            return total + (stat.split(separator: " ").first.flatMap { Double($0) } ?? 0) / 1e9
        }
    }

    /// One `trove search` process, start to exit (it must exit 0); CPU time is its own, plus what process
    /// `alsoCounting` (a `trove serve` answering it) used meanwhile.
    static func timeSearch(
        _ trove: String, index: String, mode: String, server: FakeOllamaServer, extra: [String] = [],
        alsoCounting pid: Int32? = nil
    ) throws -> Timing {
        let arguments = ["search", "--mode", mode, "--index", index, "-n", "10"] + extra + ["topic passage 42"]
        var environment = ProcessInfo.processInfo.environment
        environment["OLLAMA_HOST"] = server.baseURL.absoluteString
        let cpuStart = childrenCPU() + (pid.map(processCPU) ?? 0)
        let start = DispatchTime.now().uptimeNanoseconds
        let status = try spawnAndWait(trove, arguments, environment: environment)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        let cpu = (childrenCPU() + (pid.map(processCPU) ?? 0) - cpuStart) * 1000
        guard status == 0 else {
            throw NSError(domain: "trove search exited with status \(status)", code: 1)
        }
        return Timing(wall: elapsed, cpu: cpu)
    }

    /// Runs `path` with its output thrown away and returns its wait status once it exited. Not Foundation's
    /// `Process`: its `waitUntilExit` polls a run loop every 50 ms on Linux, which rounded every wall time up to a
    /// multiple of 50 ms in the earlier tables (BENCHMARKS.md#hybrid-at-scale).
    static func spawnAndWait(_ path: String, _ arguments: [String], environment: [String: String]) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw NSError(domain: "could not start \(path): errno \(spawned)", code: 1) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}
