import Foundation
import Synchronization
import TroveBLAS
import TroveSearch
import TroveStore

/// Where the retriever's vector candidates come from: a snapshot of the matrix ranked by BLAS in this process
/// (SQLite), or the store's own query with the filter inside it (PostgreSQL + pgvector). Everything else of a
/// search (keywords, fusion, grouping, the winners' text) is the same code for both.
protocol VectorRanking: AnyObject {
    /// Readies the vectors (a snapshot store loads its matrix, and its int8 copy when a search asking for `scan`
    /// would scan it, `automatic` deciding; a query store has nothing to load). With `aside`, a copy that
    /// `.automatic` would take is built on another thread while searches scan exactly (`.int8` still waits for it).
    func prepare(_ scan: VectorScan, _ automatic: AutomaticScan, aside: Bool) throws
    /// A ranking of the passages against `query` (unit length), restricted to what `allowed` allows when given:
    /// called with a depth k, it returns the best k at or above `minScore`, best first, scanned as `scan` asks
    /// (`automatic` deciding `.automatic`). The restriction is set up once, so the retriever can ask again deeper.
    func ranking(
        query: [Float], allowed: CandidateRestriction?, minScore: Float, scan: VectorScan, automatic: AutomaticScan
    ) throws -> (Int) throws -> [ScoredRow]
    /// The cosine of each of these chunks with `query`, for candidates that only the keyword ranking found.
    func similarities(of chunkIDs: [Int64], query: [Float]) throws -> [Int64: Float]
}

/// The snapshot ranking: the whole matrix in memory (mapped from the flat cache), scored by `VectorSearcher`.
final class MatrixRanking: VectorRanking {
    private let store: any VectorSnapshotStore
    /// The vectors, loaded on first use and kept (a warm `trove serve` ranks many queries with one load).
    private var matrix: VectorMatrix?
    /// The int8 copy, built at warm-up, by the first search that asks for it, or aside, and kept.
    private let copy = Int8Copy()

    init(store: any VectorSnapshotStore) { self.store = store }

    func prepare(_ scan: VectorScan, _ automatic: AutomaticScan, aside: Bool) throws {
        let matrix = try loadedMatrix()
        // Built here, at warm-up or while the query is embedded, rather than in the ranking; after a reload a warm
        // process's default searches scan exactly meanwhile instead of waiting (~0.7 s at 1M × 384 on Zen 4).
        guard automatic.usesInt8(scan, floats: matrix.count * matrix.dimension) else { return }
        if aside && scan == .automatic {
            copy.buildAside(matrix)
        } else {
            _ = copy.built(matrix)
        }
    }

    /// Whether the int8 copy is built (tests).
    var holdsInt8Copy: Bool { copy.searcher != nil }

    /// The index's vectors, read from the store once (from its flat cache file when that is current).
    func loadedMatrix() throws -> VectorMatrix {
        if let matrix { return matrix }
        // Scoring calls OpenBLAS: a machine without it gets an error here, not a stopped process.
        try BLAS.load()
        let vectors = try store.loadVectorsCached()
        let loaded: VectorMatrix
        if let mapping = vectors.mapping {
            // Scored in place from the page cache: no copy of the matrix.
            loaded = VectorMatrix(
                dimension: vectors.dimension, rowIDs: vectors.chunkIDs, borrowing: mapping.values, owner: mapping)
        } else {
            loaded = VectorMatrix(dimension: vectors.dimension, rowIDs: vectors.chunkIDs, values: vectors.values)
        }
        matrix = loaded
        return loaded
    }

    func ranking(
        query: [Float], allowed: CandidateRestriction?, minScore: Float, scan: VectorScan, automatic: AutomaticScan
    ) throws -> (Int) throws -> [ScoredRow] {
        let matrix = try loadedMatrix()
        // The filter becomes a row mask before anything is scored, so top-k is taken among the allowed rows.
        let mask = try allowed.map { matrix.mask(allowingIDs: try ids($0)) }
        let searcher = VectorSearcher(matrix: matrix)
        // `.automatic` takes the copy when it is built (it may still be building aside), `.int8` in any case.
        let int8 = automatic.usesInt8(scan, floats: matrix.count * matrix.dimension)
        let quantizedSearcher = !int8 ? nil : scan == .int8 ? copy.built(matrix) : copy.searcher
        return { depth in
            if let quantizedSearcher {
                return quantizedSearcher.search(query: query, k: depth, minScore: minScore, allowed: mask)
            } else if let mask {
                return searcher.search(query: query, k: depth, minScore: minScore, allowed: mask)
            }
            return searcher.search(query: query, k: depth, minScore: minScore)
        }
    }

    /// The chunk ids a restriction allows (conditions are evaluated here, over the store's documents).
    private func ids(_ restriction: CandidateRestriction) throws -> [Int64] {
        switch restriction {
        case .chunks(let ids): return ids
        case .documents(let conditions):
            return try store.chunkIDs(inDocuments: store.searchableDocuments().filter(conditions.matches).map(\.id))
        }
    }

    func similarities(of chunkIDs: [Int64], query: [Float]) throws -> [Int64: Float] {
        let matrix = try loadedMatrix()
        var scores: [Int64: Float] = [:]
        for id in chunkIDs { scores[id] = matrix.score(ofID: id, query: query) }
        return scores
    }
}

/// A matrix's int8 copy: built on the caller's thread or on a thread of its own, once.
private final class Int8Copy: Sendable {
    private enum State {
        case missing, building, built(QuantizedSearcher)
    }

    private let state = Mutex<State>(.missing)

    /// The copy, if built.
    var searcher: QuantizedSearcher? {
        state.withLock { if case .built(let searcher) = $0 { searcher } else { nil } }
    }

    /// The copy, built now if it is not (also while it is being built aside: a search that asked for the int8 scan
    /// does not wait for that thread).
    func built(_ matrix: VectorMatrix) -> QuantizedSearcher {
        if let searcher { return searcher }
        let searcher = QuantizedSearcher(matrix: matrix)
        state.withLock { $0 = .built(searcher) }
        return searcher
    }

    /// Starts building the copy on a thread of its own, unless it is built or being built.
    func buildAside(_ matrix: VectorMatrix) {
        let start = state.withLock { state in
            guard case .missing = state else { return false }
            state = .building
            return true
        }
        guard start else { return }
        Thread.detachNewThread { [self] in
            let searcher = QuantizedSearcher(matrix: matrix)
            state.withLock { if case .building = $0 { $0 = .built(searcher) } }
        }
    }
}

/// The query ranking: each depth is one query of the store (`ORDER BY embedding <=> $1 LIMIT k` in PostgreSQL,
/// filter in its `WHERE`). There is no int8 copy: every `VectorScan` ranks as the store does.
final class StoreRanking: VectorRanking {
    private let store: any VectorQueryStore

    init(store: any VectorQueryStore) { self.store = store }

    func prepare(_ scan: VectorScan, _ automatic: AutomaticScan, aside: Bool) throws {}

    func ranking(
        query: [Float], allowed: CandidateRestriction?, minScore: Float, scan: VectorScan, automatic: AutomaticScan
    ) throws -> (Int) throws -> [ScoredRow] {
        let store = store
        return { depth in
            let hits =
                switch allowed {
                case .documents(let conditions)?:
                    try store.nearestChunks(to: query, limit: depth, minScore: minScore, matching: conditions)
                case .chunks(let ids)?:
                    try store.nearestChunks(to: query, limit: depth, minScore: minScore, allowedChunkIDs: ids)
                case nil: try store.nearestChunks(to: query, limit: depth, minScore: minScore, allowedChunkIDs: nil)
                }
            return hits.map { ScoredRow(id: $0.chunkID, score: $0.score) }
        }
    }

    func similarities(of chunkIDs: [Int64], query: [Float]) throws -> [Int64: Float] {
        try store.similarities(ofChunks: chunkIDs, to: query)
    }
}
