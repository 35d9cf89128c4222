import TroveTestSupport

@testable import TroveStore

/// A manifest for tests, of `dimension` floats.
func sampleManifest(dimension: Int = 4) -> IndexManifest {
    IndexManifest(
        provider: .ollama, model: "nomic-embed-text", modelDigest: "sha256:abc", dimension: dimension,
        chunkerVersion: 1, chunkerParameters: "maxTokens=400,overlap=0.12", queryPrefix: "search_query: ",
        documentPrefix: "search_document: ")
}

/// A new index under `directory` with a manifest written.
func makeStore(in directory: TemporaryDirectory, dimension: Int = 4) throws -> SQLiteStore {
    let store = try SQLiteStore(path: directory.path + "/index.sqlite", createIfMissing: true)
    try store.writeManifest(sampleManifest(dimension: dimension))
    return store
}

/// A chunk whose vector is `vector` (default: a one-hot of the ordinal).
func chunk(_ ordinal: Int, _ text: String, heading: String = "", vector: [Float]? = nil, dimension: Int = 4) -> NewChunk
{
    var oneHot = [Float](repeating: 0, count: dimension)
    oneHot[ordinal % dimension] = 1
    return NewChunk(
        ordinal: ordinal, startLine: ordinal * 10 + 1, endLine: ordinal * 10 + 9, heading: heading, text: text,
        contentHash: "hash-\(ordinal)-\(text.count)", vector: vector ?? oneHot)
}

/// A document at `path` under `rootID`.
func document(_ rootID: Int64, _ path: String, hash: String = "h") -> NewDocument {
    NewDocument(
        rootID: rootID, path: path, size: 100, modifiedNanoseconds: 1_700_000_000_000_000_000, contentHash: hash)
}

/// The integer result of raw SQL, for checks the public API does not expose.
func count(_ store: SQLiteStore, _ sql: String) throws -> Int {
    Int(try store.database.scalarInt(sql) ?? -1)
}


/// SQLite result codes the tests check, spelled out so the tests need not import CSQLite.
enum ResultCode {
    static let full: Int32 = 13
    static let notADatabase: Int32 = 26
}

/// Keyword matches through the store protocol, with the default BM25 and no restriction (either store).
func keywords(_ store: any IndexBackend, _ query: String, limit: Int = 10) throws -> [KeywordHit] {
    try store.keywordSearch(query, limit: limit, allowedChunkIDs: nil, bm25: BM25())
}
