import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@testable import TroveStore
import TroveTestTraits

@Suite("The flat vector cache beside the index", .offCooperativePool)
struct VectorCacheTests {
    private func fill(_ store: SQLiteStore, documents: Range<Int>, dimension: Int = 8) throws {
        let root = try store.rootID(forPath: "/r")
        var random = SplitMix64(seed: UInt64(documents.lowerBound + 7))
        try store.inTransaction {
            for index in documents {
                let chunks = (0..<3).map { ordinal in
                    chunk(
                        ordinal, "text \(index) \(ordinal)",
                        vector: (0..<dimension).map { _ in Float.random(in: -1...1, using: &random) },
                        dimension: dimension)
                }
                try store.replaceDocument(document(root, "doc\(index).md"), chunks: chunks)
            }
        }
    }

    private func same(_ a: StoredVectors, _ b: StoredVectors) -> Bool {
        a.dimension == b.dimension && a.chunkIDs == b.chunkIDs && a.values == b.values
    }

    @Test("the first load writes a private cache; later loads read it and equal the index bit for bit")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, dimension: 8)
        try fill(store, documents: 0..<20)
        let first = try store.loadVectorsCached()
        #expect(same(first, try store.loadVectors()))
        #expect(FileSystem.permissions(store.vectorCachePath) == 0o600)
        #expect(FileSystem.size(store.vectorCachePath) == 64 + 60 * (8 + 32))
        let stale = VectorCache.Key(dimension: 8, chunkCount: 60, maxChunkID: first.chunkIDs.last!)
        #expect(VectorCache.read(store.vectorCachePath, key: stale) == nil)
        #expect(same(try store.loadVectorsCached(), first))
    }

    @Test("adding, replacing or removing a document makes the cache stale, and the next load sees the change")
    func staleness() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, dimension: 8)
        try fill(store, documents: 0..<5)
        _ = try store.loadVectorsCached()
        try fill(store, documents: 5..<6)
        #expect(same(try store.loadVectorsCached(), try store.loadVectors()))
        try fill(store, documents: 2..<3)  // replaced: same count, new ids
        #expect(same(try store.loadVectorsCached(), try store.loadVectors()))
        let documents = try store.documents(inRoot: try store.rootID(forPath: "/r"))
        try store.deleteDocument(id: documents["doc4.md"]!.id)
        let after = try store.loadVectorsCached()
        #expect(after.chunkIDs.count == 15)
        #expect(same(after, try store.loadVectors()))
    }

    @Test("an index deleted and rebuilt at the same path with another model does not reuse the old cache")
    func rebuiltIndex() throws {
        let directory = try TemporaryDirectory()
        var store = try makeStore(in: directory, dimension: 8)
        try fill(store, documents: 0..<3)
        _ = try store.loadVectorsCached()
        let path = store.path
        store = try makeStore(in: try TemporaryDirectory(), dimension: 8)  // release the first connection
        unlink(path)
        let rebuilt = try SQLiteStore(path: path, createIfMissing: true)
        var manifest = sampleManifest(dimension: 8)
        manifest.model = "another-model"
        try rebuilt.writeManifest(manifest)
        let root = try rebuilt.rootID(forPath: "/r")
        var random = SplitMix64(seed: 99)
        try rebuilt.inTransaction {
            for index in 0..<3 {
                let chunks = (0..<3).map { ordinal in
                    chunk(
                        ordinal, "other \(index) \(ordinal)",
                        vector: (0..<8).map { _ in Float.random(in: -1...1, using: &random) }, dimension: 8)
                }
                try rebuilt.replaceDocument(document(root, "doc\(index).md"), chunks: chunks)
            }
        }
        #expect(same(try rebuilt.loadVectorsCached(), try rebuilt.loadVectors()))
    }

    @Test("a truncated or foreign cache file is ignored and rewritten")
    func damaged() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, dimension: 8)
        try fill(store, documents: 0..<4)
        _ = try store.loadVectorsCached()
        #expect(truncate(store.vectorCachePath, 100) == 0)
        #expect(same(try store.loadVectorsCached(), try store.loadVectors()))
        #expect(FileSystem.size(store.vectorCachePath) == 64 + 12 * (8 + 32))
        _ = try directory.write("index.sqlite.vectors", "not a cache")
        #expect(same(try store.loadVectorsCached(), try store.loadVectors()))
    }

    @Test("a cache hit is mapped, not copied, and every load mode reads the same matrix")
    func mapped() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, dimension: 8)
        try fill(store, documents: 0..<10)
        let fromIndex = try store.loadVectorsCached()
        #expect(fromIndex.mapping == nil)
        let hit = try store.loadVectorsCached()
        #expect(hit.mapping != nil)
        #expect(same(hit, fromIndex))
        let key = VectorCache.Key(
            dimension: 8, chunkCount: 30, maxChunkID: fromIndex.chunkIDs.last!,
            fingerprint: try #require(Self.header(store.vectorCachePath))[5],
            inode: try #require(Self.header(store.vectorCachePath))[6])
        for mode in [VectorCache.LoadMode.map, .mapLazy, .mapWillNeed, .mapSequential, .read] {
            let read = try #require(VectorCache.read(store.vectorCachePath, key: key, mode: mode))
            #expect(same(read, fromIndex), "\(mode)")
            #expect((read.mapping != nil) == (mode != .read))
        }
    }

    @Test("a cache with a row missing or with its row ids out of order is refused and rebuilt from the index")
    func corrupt() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, dimension: 8)
        try fill(store, documents: 0..<4)
        let expected = try store.loadVectors()
        _ = try store.loadVectorsCached()
        let size = FileSystem.size(store.vectorCachePath)
        // One float short: the size no longer matches the header.
        #expect(truncate(store.vectorCachePath, off_t(size - 4)) == 0)
        let rebuilt = try store.loadVectorsCached()
        #expect(rebuilt.mapping == nil)
        #expect(same(rebuilt, expected))
        #expect(FileSystem.size(store.vectorCachePath) == size)
        // Swap the first two row ids in place: right size and header, ids not ascending.
        let descriptor = open(store.vectorCachePath, O_RDWR)
        #expect(descriptor >= 0)
        var ids = [Int64](repeating: 0, count: 2)
        #expect(ids.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 16, 64) } == 16)
        ids.swapAt(0, 1)
        #expect(ids.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, 16, 64) } == 16)
        close(descriptor)
        let refused = try store.loadVectorsCached()
        #expect(refused.mapping == nil)
        #expect(same(refused, expected))
        #expect(try store.loadVectorsCached().mapping != nil)
    }

    @Test("a mapping open while the index changes keeps its snapshot: the cache is replaced, not rewritten")
    func readerDuringWrite() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, dimension: 8)
        try fill(store, documents: 0..<5)
        let before = try store.loadVectors()
        _ = try store.loadVectorsCached()
        let open = try store.loadVectorsCached()
        #expect(open.mapping != nil)
        var info = stat()
        #expect(stat(store.vectorCachePath, &info) == 0)
        let oldInode = info.st_ino
        try fill(store, documents: 0..<5)  // every document replaced: new ids, new vectors
        let after = try store.loadVectorsCached()  // rewrites the cache
        #expect(stat(store.vectorCachePath, &info) == 0)
        #expect(info.st_ino != oldInode)
        #expect(FileSystem.permissions(store.vectorCachePath) == 0o600)
        #expect(same(open, before))
        #expect(!same(after, before))
        #expect(same(try store.loadVectorsCached(), try store.loadVectors()))
    }

    /// The cache file's 8 header words.
    private static func header(_ path: String) -> [UInt64]? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var words = [UInt64](repeating: 0, count: 8)
        return words.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress!, 64) }) == 64 ? words : nil
    }
}
