import Testing
import TroveStore

@testable import TroveKit

@Suite("The notice before a large ANN index build")
struct ANNBuildNoticeTests {
    private func state(vectors: Int, wanted: Bool = true, built: Bool = false) -> ANNIndexState {
        ANNIndexState(
            policy: "auto", vectors: vectors, threshold: 20_000, wanted: wanted, built: built,
            estimatedBuildSeconds: vectors * 26 / 10_000)
    }

    @Test("past 200k vectors a due build is announced with its rough duration; otherwise nothing is said")
    func notice() {
        #expect(
            TroveIndex.buildNotice(state(vectors: 250_000))
                == "building the HNSW index over 250000 vectors: roughly 11 min at the measured rate (BENCHMARKS.md); "
                + "the documents are saved and searchable (exactly) meanwhile")
        #expect(TroveIndex.buildNotice(state(vectors: 200_000)) == nil)
        #expect(TroveIndex.buildNotice(state(vectors: 900_000, built: true)) == nil)
        #expect(TroveIndex.buildNotice(state(vectors: 900_000, wanted: false)) == nil)
    }
}
