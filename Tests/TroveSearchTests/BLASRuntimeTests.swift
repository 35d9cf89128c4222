import Testing
import TroveSearch

@Suite("BLAS runtime")
struct BLASRuntimeTests {
    @Test("searchers run OpenBLAS single-threaded and report the kernel in use")
    func defaults() {
        _ = VectorSearcher(matrix: VectorMatrix(dimension: 1, rowIDs: [], values: []))
        BLASRuntime.setThreadCount(BLASRuntime.recommendedThreadCount)
        #expect(BLASRuntime.threadCount == 1)
        #expect(!BLASRuntime.kernel.isEmpty)
        #expect(BLASRuntime.configuration.hasPrefix("OpenBLAS"))
    }

    @Test("a query of the wrong dimension stops the process")
    func dimensionMismatchTraps() async {
        await #expect(processExitsWith: .failure) {
            let matrix = VectorMatrix(dimension: 3, rowIDs: [1], values: [1, 0, 0])
            _ = VectorSearcher(matrix: matrix).search(query: [1, 0], k: 1)
        }
    }
}
