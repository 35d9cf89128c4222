import Testing
import TroveSearch
import TroveTestSupport
@testable import TroveBLAS
import TroveTestTraits

@Suite("BLAS runtime", .offCooperativePool)
struct BLASRuntimeTests {
    @Test("searchers use the recommended OpenBLAS thread count and report the kernel")
    func defaults() async {
        _ = VectorSearcher(matrix: VectorMatrix(dimension: 1, rowIDs: [], values: []))
        BLASRuntime.setThreadCount(BLASRuntime.recommendedThreadCount)
        // An encoder of another test may be running with its own count: the one set here applies when it ends.
        let deadline = ContinuousClock.now + .seconds(120)
        while BLASRuntime.threadCount != BLASRuntime.recommendedThreadCount, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        #expect(BLASRuntime.threadCount == BLASRuntime.recommendedThreadCount)
        #expect((1...2).contains(BLASRuntime.recommendedThreadCount))
        #expect(!BLASRuntime.kernel.isEmpty)
        #expect(BLASRuntime.configuration.hasPrefix("OpenBLAS"))
    }

    @Test("the kernel asked for follows the CPU's instruction sets, not OpenBLAS's list of CPU models")
    func kernelForInstructionSets() {
        let skylakeX: Set<Substring> = ["sse2", "avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]
        #expect(KernelChoice.coreType(forCPUFlags: skylakeX) == "SkylakeX")
        // AVX-512 Foundation alone (Knights Landing has no BW/VL) is not what SkylakeX kernels need.
        #expect(KernelChoice.coreType(forCPUFlags: ["avx", "avx2", "fma", "avx512f"]) == "Haswell")
        #expect(KernelChoice.coreType(forCPUFlags: ["avx", "avx2"]) == nil)
        #expect(KernelChoice.coreType(forCPUFlags: []) == nil)
    }

    @Test("the kernel Trove chose is the one OpenBLAS runs, and it is not the slow generic one")
    func chosenKernelRuns() {
        switch BLASRuntime.kernelDecision {
        case .chosen(let coreType):
            #expect(BLASRuntime.kernel == coreType)
            #expect(!BLASRuntime.isSlowKernel)
            #expect(BLASRuntime.configuration.contains("kernel \(coreType) (chosen by Trove for this CPU)"))
        case .userSet(let value):
            #expect(BLASRuntime.configuration.contains("OPENBLAS_CORETYPE=\(value)"))
        case .leftToOpenBLAS:
            #expect(KernelChoice.coreType(forCPUFlags: CPU.flags) == nil)
        }
    }

    @Test("a query of the wrong dimension stops the process")
    func dimensionMismatchTraps() async {
        await #expect(processExitsWith: .failure) {
            let matrix = VectorMatrix(dimension: 3, rowIDs: [1], values: [1, 0, 0])
            _ = VectorSearcher(matrix: matrix).search(query: [1, 0], k: 1)
        }
    }
}

@Suite("concurrent callers", .offCooperativePool)
struct ConcurrencyTests {
    @Test("searches from many tasks at once match the same searches run one by one")
    func concurrentSearchesAgree() async {
        var rng = SplitMix64(seed: 2024)
        // Large enough (8 000 × 64) that OpenBLAS splits each sgemv across its threads.
        let searcher = VectorSearcher(matrix: Fixture.quantizedMatrix(rows: 8_000, dimension: 64, using: &rng))
        let queries = (0..<32).map { _ in rng.quantizedVector(dimension: 64) }
        let expected = queries.map { searcher.search(query: $0, k: 10) }
        let batch = searcher.search(queries: queries, k: 10)
        let results = await withTaskGroup(of: (Int, [ScoredRow], [[ScoredRow]]).self) { group in
            for (index, query) in queries.enumerated() {
                group.addTask {
                    (index, searcher.search(query: query, k: 10), searcher.search(queries: [query], k: 10))
                }
            }
            var results = [(Int, [ScoredRow], [[ScoredRow]])]()
            for await result in group { results.append(result) }
            return results
        }
        #expect(results.count == queries.count)
        for (index, single, batched) in results {
            #expect(single == expected[index])
            #expect(batched == [expected[index]])
            #expect(batch[index] == expected[index])
        }
    }
}
