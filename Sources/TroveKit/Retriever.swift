import TroveSearch
import TroveStore

/// One passage found by a search.
public struct SearchHit: Sendable, Equatable {
    /// 1-based position in the results.
    public var rank: Int
    public var chunkID: Int64
    /// The indexed folder the document belongs to.
    public var rootPath: String
    /// The document's path relative to `rootPath`.
    public var relativePath: String
    public var startLine: Int
    public var endLine: Int
    /// Heading path, e.g. `Deploy › Keys`; empty when the passage has none.
    public var heading: String
    /// Cosine similarity with the query: higher is better, at most 1.
    public var score: Float
    public var text: String

    public init(
        rank: Int, chunkID: Int64, rootPath: String, relativePath: String, startLine: Int, endLine: Int,
        heading: String, score: Float, text: String
    ) {
        self.rank = rank
        self.chunkID = chunkID
        self.rootPath = rootPath
        self.relativePath = relativePath
        self.startLine = startLine
        self.endLine = endLine
        self.heading = heading
        self.score = score
        self.text = text
    }

    /// The document's absolute path.
    public var path: String { rootPath.hasSuffix("/") ? rootPath + relativePath : rootPath + "/" + relativePath }
}

/// Ranks an index's passages against a query by meaning.
public final class Retriever {
    public let store: IndexStore
    public let manifest: IndexManifest

    /// Opens the index's fingerprint; an index with nothing in it is refused, since no search could find anything.
    public init(store: IndexStore) throws {
        guard let manifest = try store.manifest(), try store.statistics().vectors > 0 else {
            throw IndexError.empty(store.path)
        }
        self.store = store
        self.manifest = manifest
    }

    /// Refuses a `--model` that differs from the model the index was built with: their vectors don't compare.
    public func checkRequestedModel(_ model: String?) throws {
        guard let model, model != manifest.model else { return }
        throw IndexError(
            code: .modelMismatch,
            message: "index \(store.path) was built with '\(manifest.model)', not '\(model)' — "
                + "drop --model to search it, or index with '\(model)' into another --index")
    }

    /// The best `limit` passages for `query`, best first; passages scoring below `minScore` are left out.
    public func search(query: String, embedder: any Embedder, limit: Int, minScore: Float = -1) async throws
        -> [SearchHit]
    {
        guard let raw = try await embedder.embed([manifest.queryPrefix + query]).first else { return [] }
        guard raw.count == manifest.dimension else {
            throw IndexError.dimension(expected: manifest.dimension, got: raw.count, model: embedder.model)
        }
        let vectors = try store.loadVectors()
        let matrix = VectorMatrix(dimension: vectors.dimension, rowIDs: vectors.chunkIDs, values: vectors.values)
        let ranked = VectorSearcher(matrix: matrix).search(
            query: VectorMath.normalized(raw), k: limit, minScore: minScore)
        let chunks = try store.chunks(ids: ranked.map(\.id))
        return ranked.enumerated().compactMap { offset, row in
            guard let chunk = chunks[row.id] else { return nil }
            return SearchHit(
                rank: offset + 1, chunkID: row.id, rootPath: chunk.rootPath, relativePath: chunk.path,
                startLine: chunk.startLine, endLine: chunk.endLine, heading: chunk.heading, score: row.score,
                text: chunk.text)
        }
    }
}
