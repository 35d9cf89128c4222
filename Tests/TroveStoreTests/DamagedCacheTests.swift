import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@testable import TroveStore
import TroveTestTraits

/// `INDEX.vectors` is untrusted bytes: a damaged or hostile header is rebuilt from the index, never a trap.
@Suite("A damaged INDEX.vectors header", .offCooperativePool)
struct DamagedCacheTests {
    private func indexWithCache() throws -> (TemporaryDirectory, SQLiteStore, StoredVectors) {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, dimension: 4)
        let root = try store.rootID(forPath: "/r")
        try store.inTransaction {
            for index in 0..<4 {
                try store.replaceDocument(
                    document(root, "doc\(index).md"), chunks: (0..<3).map { chunk($0, "text \(index) \($0)") })
            }
        }
        let vectors = try store.loadVectorsCached()
        return (directory, store, vectors)
    }

    private func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        try #require(written == bytes.count)
    }

    @Test("16 bytes of 0xff at offset 8 (row count and dimension above Int.max): the next load rebuilds the file")
    func allOnes() throws {
        let (directory, store, original) = try indexWithCache()
        defer { withExtendedLifetime(directory) {} }
        try overwrite(store.vectorCachePath, at: 8, with: [UInt8](repeating: 0xFF, count: 16))
        let loaded = try store.loadVectorsCached()
        #expect(loaded.chunkIDs == original.chunkIDs && loaded.values == original.values)
        // Rebuilt: the header on disk is valid again.
        let key = try #require(try currentKey(store))
        #expect(VectorCache.read(store.vectorCachePath, key: key) != nil)
    }

    @Test("seeded random headers never trap and never yield vectors other than the index's", arguments: 0..<4)
    func randomHeaders(seed: UInt64) throws {
        let (directory, store, original) = try indexWithCache()
        defer { withExtendedLifetime(directory) {} }
        var random = SplitMix64(seed: seed)
        for round in 0..<50 {
            // Keep the magic in half the rounds so the checks past it are reached too.
            var header = (0..<64).map { _ in UInt8.random(in: 0...255, using: &random) }
            if round % 2 == 0 { header.replaceSubrange(0..<8, with: Array("TROVEVC1".utf8)) }
            try overwrite(store.vectorCachePath, at: 0, with: header)
            let loaded = try store.loadVectorsCached()
            #expect(loaded.chunkIDs == original.chunkIDs && loaded.values == original.values)
        }
    }

    @Test("a header whose row count times the row size overflows is refused by the shape check")
    func overflowingShape() {
        let key = VectorCache.Key(dimension: 4, chunkCount: Int.max, maxChunkID: 9)
        var header = [UInt64](repeating: 0, count: 8)
        header[0] = VectorCache.magic
        header[1] = UInt64(Int.max / 2)
        header[2] = 4
        header[3] = UInt64(Int.max)
        header[4] = 9
        #expect(VectorCache.checkedShape(header, key: key, fileSize: 64) == nil)
        header[1] = 1
        #expect(VectorCache.checkedShape(header, key: key, fileSize: 64 + 8 + 16)?.count == 1)
    }

    @Test("a symlink planted at the cache's temporary name is not written through")
    func plantedSymlink() throws {
        let (directory, store, _) = try indexWithCache()
        let target = try directory.write("victim.txt", "keep me")
        let temporary = store.vectorCachePath + ".tmp.\(getpid())"
        try #require(symlink(target, temporary) == 0)
        unlink(store.vectorCachePath)
        _ = try store.loadVectorsCached()
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
    }

    private func currentKey(_ store: SQLiteStore) throws -> VectorCache.Key? {
        try store.vectorCacheKey()
    }
}
