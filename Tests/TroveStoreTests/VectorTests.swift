import Testing
import TroveTestSupport

@testable import TroveStore
import TroveTestTraits

@Suite("Loading vectors", .offCooperativePool)
struct VectorTests {
    @Test("1000 random vectors load in chunk-id order, row-major, bit for bit")
    func loadOrderAndShape() throws {
        let directory = try TemporaryDirectory()
        let dimension = 24
        let store = try makeStore(in: directory, dimension: dimension)
        let root = try store.rootID(forPath: "/r")
        var random = SplitMix64(seed: 42)
        var expected: [Int64: [Float]] = [:]
        try store.inTransaction {
            for documentIndex in 0..<100 {
                let chunks = (0..<10).map { ordinal in
                    chunk(
                        ordinal, "text \(documentIndex) \(ordinal)",
                        vector: (0..<dimension).map { _ in Float.random(in: -1...1, using: &random) },
                        dimension: dimension)
                }
                try store.replaceDocument(document(root, "doc\(documentIndex).md"), chunks: chunks)
            }
        }
        // Replace a few documents so chunk ids have gaps and are not in insertion order of documents.
        try store.replaceDocument(
            document(root, "doc3.md"),
            chunks: [chunk(0, "late", vector: [Float](repeating: 0.5, count: dimension), dimension: dimension)])
        try store.database.withStatement("SELECT chunk_id, embedding FROM vectors") { statement in
            while try statement.step() {
                let bytes = statement.blobBytes(1)
                expected[statement.int64(0)] = Array(bytes.bindMemory(to: Float.self))
            }
        }

        let vectors = try store.loadVectors()
        #expect(vectors.dimension == dimension)
        #expect(vectors.chunkIDs.count == 991)
        #expect(vectors.values.count == 991 * dimension)
        #expect(vectors.chunkIDs == vectors.chunkIDs.sorted())
        #expect(Set(vectors.chunkIDs) == Set(expected.keys))
        var mismatches = 0
        for (row, id) in vectors.chunkIDs.enumerated() {
            let loaded = vectors.values[(row * dimension)..<((row + 1) * dimension)]
            if loaded.map(\.bitPattern) != expected[id]!.map(\.bitPattern) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("an empty index loads an empty matrix of the manifest's dimension")
    func empty() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, dimension: 384)
        let vectors = try store.loadVectors()
        #expect(vectors.dimension == 384)
        #expect(vectors.chunkIDs.isEmpty)
        #expect(vectors.values.isEmpty)
    }

    /// Overwrites the vector of the only chunk with raw bytes, as a damaged file or a buggy writer would.
    private func storeWithRawVector(_ directory: TemporaryDirectory, bytes: [UInt8]) throws -> (SQLiteStore, Int64) {
        let store = try makeStore(in: directory, dimension: 384)
        let root = try store.rootID(forPath: "/r")
        try store.replaceDocument(
            document(root, "a.md"),
            chunks: [chunk(0, "a", vector: [Float](repeating: 0.1, count: 384), dimension: 384)])
        let chunkID = try store.loadVectors().chunkIDs[0]
        try store.database.withStatement("UPDATE vectors SET embedding = ? WHERE chunk_id = ?") { statement in
            try statement.bind(blob: bytes, at: 1)
            try statement.bind(chunkID, at: 2)
            try statement.run()
        }
        return (store, chunkID)
    }

    @Test("a vector of the wrong length is reported with expected and found sizes")
    func wrongLength() throws {
        let directory = try TemporaryDirectory()
        let (store, chunkID) = try storeWithRawVector(directory, bytes: [UInt8](repeating: 0, count: 1532))
        let error = #expect(throws: StoreError.self) { try store.loadVectors() }
        #expect(error?.code == .corruptVector)
        #expect(error?.description == "chunk \(chunkID) has a vector of 1532 bytes: expected 1536 (384 floats)")
    }

    @Test("a zero-length vector is reported, not read past", arguments: [0])
    func emptyBlob(length: Int) throws {
        let directory = try TemporaryDirectory()
        let (store, chunkID) = try storeWithRawVector(directory, bytes: [UInt8](repeating: 0, count: length))
        let error = #expect(throws: StoreError.self) { try store.loadVectors() }
        #expect(error?.description == "chunk \(chunkID) has a vector of 0 bytes: expected 1536 (384 floats)")
    }

    @Test("a vector holding NaN or infinity is reported", arguments: [Float.nan, .infinity, -.infinity, .signalingNaN])
    func nonFinite(value: Float) throws {
        var floats = [Float](repeating: 0.1, count: 384)
        floats[200] = value
        let bytes = floats.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
        let directory = try TemporaryDirectory()
        let (store, chunkID) = try storeWithRawVector(directory, bytes: bytes)
        let error = #expect(throws: StoreError.self) { try store.loadVectors() }
        #expect(error?.code == .corruptVector)
        #expect(error?.description == "chunk \(chunkID) has a non-finite value in its vector")
    }

    @Test("the finiteness check agrees with Float.isFinite on edge values")
    func finiteEdges() {
        let values: [Float] = [
            0, -0, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .infinity, -.infinity, .nan, -.nan, .signalingNaN, 1, -1,
        ]
        for value in values {
            let checked = [value].withUnsafeBufferPointer(VectorBlob.isFinite)
            #expect(checked == value.isFinite, "\(value)")
        }
    }
}
