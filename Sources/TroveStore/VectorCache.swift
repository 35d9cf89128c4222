#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TroveSystem

/// The matrix of an index as one flat file beside it (`INDEX.vectors`), so a fresh process loads N vectors with
/// two sequential `read`s straight into the final arrays instead of stepping through N BLOB rows.
///
/// Layout: 64-byte header (magic `TROVEVC1`, row count, dimension, chunk count, highest chunk id, fingerprint hash,
/// index inode, all little-endian 64-bit), then the row ids (Int64), then the rows (Float32), ids ascending. The file
/// is a cache: its key is read from the index without touching a vector. Chunk ids are never reused within an index
/// and a document's vectors are written with its chunks, so any change of the vectors changes the count or the
/// highest id; the fingerprint (model, digest, chunker, prefixes) and the index file's inode catch an index deleted
/// and rebuilt at the same path. A stale or unreadable cache is rebuilt, one that cannot be written is not used.
package enum VectorCache {
    static let magic: UInt64 = 0x3143_5645_564F_5254  // "TROVEVC1" little-endian
    static let headerSize = 64

    /// What the cache must match.
    struct Key: Equatable {
        var dimension: Int
        var chunkCount: Int
        var maxChunkID: Int64
        /// FNV-1a of the manifest's model, digest, chunker and prefixes.
        var fingerprint: UInt64 = 0
        /// The index file's inode.
        var inode: UInt64 = 0
    }

    /// How `read` brings the file in (`SQLiteStore.vectorLoad`; another than `.map` is for measurement only).
    package enum LoadMode: String, CaseIterable, Sendable {
        /// `mmap` read-only, page tables filled up front (`MAP_POPULATE`): the floats are scored in place.
        case map
        /// `mmap` read-only, pages faulted in by the first scan.
        case mapLazy = "map-lazy"
        /// `mmap` read-only plus `madvise(MADV_WILLNEED)`: read-ahead started, pages faulted in by the scan.
        case mapWillNeed = "map-willneed"
        /// `mmap` read-only plus `madvise(MADV_SEQUENTIAL)`.
        case mapSequential = "map-sequential"
        /// One `read` of the whole matrix into a fresh array (before mapping).
        case read
    }

    /// The cached matrix, or nil when the file is missing, stale or damaged: its header must carry `key`, its size
    /// must be exactly what the header implies, and its row ids must ascend strictly, none above `key.maxChunkID`.
    ///
    /// The floats are mapped read-only (`MAP_SHARED`, `PROT_READ`) and borrowed, not copied: a search scores them
    /// straight from the page cache. Writers replace the file by `rename`, never in place, so a mapping open in a
    /// reader keeps the old inode's bytes while an indexer writes a new cache. The floats were validated (finite,
    /// right length) when read from SQLite and written; they are not re-read here, as that would cost the pass
    /// over the matrix that mapping saves. The row ids are copied (8·N bytes) and checked.
    static func read(_ path: String, key: Key, mode: LoadMode = .map) -> StoredVectors? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var header = [UInt64](repeating: 0, count: headerSize / 8)
        guard header.withUnsafeMutableBytes({ FileDescriptor(descriptor).read(exactly: $0) }) else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
            let shape = checkedShape(header, key: key, fileSize: Int64(info.st_size))
        else { return nil }
        let (count, dimension) = shape
        if mode == .read { return readCopy(descriptor, count: count, dimension: dimension, maxID: key.maxChunkID) }
        guard count > 0, dimension > 0,
            let mapping = VectorFileMapping(
                descriptor: descriptor, length: Int(info.st_size), floatsAt: headerSize + 8 * count,
                floatCount: count * dimension, mode: mode)
        else {
            return readCopy(descriptor, count: count, dimension: dimension, maxID: key.maxChunkID)
        }
        let idBytes = UnsafeRawBufferPointer(start: mapping.base + headerSize, count: 8 * count)
        let ids = [Int64](unsafeUninitializedCapacity: count) { buffer, initialized in
            _ = UnsafeMutableRawBufferPointer(buffer).initializeMemory(as: UInt8.self, from: idBytes)
            initialized = count
        }
        guard idsAreValid(ids, maxID: key.maxChunkID) else { return nil }
        return StoredVectors(dimension: dimension, chunkIDs: ids, mapping: mapping)
    }

    /// The row count and dimension the header claims, when it carries `key` and the file is exactly as long as
    /// they imply; nil otherwise. The header is untrusted bytes: every number is converted with `exactly:` and
    /// the size computed with overflow checks, so a damaged file is rebuilt instead of trapping (FUZZING.md).
    static func checkedShape(_ header: [UInt64], key: Key, fileSize: Int64) -> (count: Int, dimension: Int)? {
        guard header.count >= 7, UInt64(littleEndian: header[0]) == magic,
            let count = Int(exactly: UInt64(littleEndian: header[1])),
            let dimension = Int(exactly: UInt64(littleEndian: header[2])), dimension == key.dimension,
            Int(exactly: UInt64(littleEndian: header[3])) == key.chunkCount,
            Int64(littleEndian: Int64(bitPattern: header[4])) == key.maxChunkID,
            UInt64(littleEndian: header[5]) == key.fingerprint, UInt64(littleEndian: header[6]) == key.inode,
            count <= key.chunkCount
        else { return nil }
        let (rowBytes, overflow1) = dimension.multipliedReportingOverflow(by: 4)
        let (rowTotal, overflow2) = rowBytes.addingReportingOverflow(8)
        let (body, overflow3) = count.multipliedReportingOverflow(by: rowTotal)
        let (size, overflow4) = body.addingReportingOverflow(headerSize)
        guard !(overflow1 || overflow2 || overflow3 || overflow4), Int64(exactly: size) == fileSize else { return nil }
        return (count, dimension)
    }

    /// Ids strictly ascending (so binary search works), none above `maxID`.
    private static func idsAreValid(_ ids: [Int64], maxID: Int64) -> Bool {
        guard var previous = ids.first, previous <= maxID else { return true }
        for id in ids.dropFirst() {
            guard id > previous else { return false }
            previous = id
        }
        return previous <= maxID
    }

    /// The rows read into fresh arrays (the descriptor is just past the header).
    private static func readCopy(_ descriptor: Int32, count: Int, dimension: Int, maxID: Int64) -> StoredVectors? {
        guard lseek(descriptor, off_t(headerSize), SEEK_SET) == off_t(headerSize) else { return nil }
        var ok = true
        let ids = [Int64](unsafeUninitializedCapacity: count) { buffer, initialized in
            ok = FileDescriptor(descriptor).read(exactly: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
        // Uninitialized storage: the read is the only pass over the matrix (the copy from the page cache).
        let values = [Float](unsafeUninitializedCapacity: count * dimension) { buffer, initialized in
            ok = ok && FileDescriptor(descriptor).read(exactly: UnsafeMutableRawBufferPointer(buffer))
            initialized = count * dimension
        }
        guard ok, idsAreValid(ids, maxID: maxID) else { return nil }
        return StoredVectors(dimension: dimension, chunkIDs: ids, values: values)
    }

    /// Writes `vectors` under `key` atomically (`AtomicFile`, mode 0600: the vectors are derived from private text,
    /// like the index itself); false on failure.
    @discardableResult
    static func write(_ vectors: StoredVectors, key: Key, to path: String) -> Bool {
        var header = [UInt64](repeating: 0, count: headerSize / 8)
        header[0] = magic.littleEndian
        header[1] = UInt64(vectors.chunkIDs.count).littleEndian
        header[2] = UInt64(vectors.dimension).littleEndian
        header[3] = UInt64(key.chunkCount).littleEndian
        header[4] = UInt64(bitPattern: key.maxChunkID).littleEndian
        header[5] = key.fingerprint.littleEndian
        header[6] = key.inode.littleEndian
        return AtomicFile.write(to: path) { file in
            header.withUnsafeBytes { file.write(all: $0) }
                && vectors.chunkIDs.withUnsafeBytes { file.write(all: $0) }
                && vectors.withUnsafeValues { file.write(all: UnsafeRawBufferPointer($0)) }
        }
    }
}

extension SQLiteStore {
    /// Where the flat copy of the matrix lives.
    package var vectorCachePath: String { path + ".vectors" }

    /// Whether the index holds any vector, without counting them (a count reads every vector page).
    package func hasVectors() throws -> Bool {
        try database.scalarInt("SELECT EXISTS (SELECT 1 FROM vectors)") == 1
    }

    /// `loadVectors()`, served from the flat cache file when it matches the index, else read from the index and
    /// the cache rewritten. The key costs two index lookups; no vector page is read on a hit.
    package func loadVectorsCached() throws -> StoredVectors {
        guard let key = try database.transaction(deferred: true, { try vectorCacheKey() }) else {
            return try loadVectors()
        }
        if let cached = VectorCache.read(vectorCachePath, key: key, mode: vectorLoad) { return cached }
        // Key and vectors from one snapshot, so an indexer committing meanwhile cannot mislabel the cache.
        let (vectors, current) = try database.transaction(deferred: true) { (try loadVectors(), try vectorCacheKey()) }
        if let current { VectorCache.write(vectors, key: current, to: vectorCachePath) }
        return vectors
    }

    /// The cache key of the index as it is now; nil without a manifest.
    func vectorCacheKey() throws -> VectorCache.Key? {
        guard let manifest = try manifest() else { return nil }
        // count(*) walks the small chunks_document_id index; max(id) is one b-tree descent.
        let count = Int(try database.scalarInt("SELECT count(*) FROM chunks") ?? 0)
        let maxID = try database.scalarInt("SELECT coalesce(max(id), 0) FROM chunks") ?? 0
        // The generation too: a re-embed replaces every vector but keeps the chunk count and ids.
        let text = [
            manifest.provider.rawValue, manifest.model, manifest.modelDigest ?? "", String(manifest.chunkerVersion),
            manifest.chunkerParameters, manifest.queryPrefix, manifest.documentPrefix, String(try vectorGeneration()),
        ].joined(separator: "\u{0}")
        var info = stat()
        let inode = stat(path, &info) == 0 ? UInt64(info.st_ino) : 0
        return VectorCache.Key(
            dimension: manifest.dimension, chunkCount: count, maxChunkID: Int64(maxID),
            fingerprint: FNV1a.hash(text.utf8), inode: inode)
    }
}

/// A read-only mapping of a vector cache file whose floats a matrix borrows; unmapped when the last matrix using
/// it goes away. The file must not be modified in place while mapped (shrinking it would fault the reader):
/// `VectorCache.write` replaces it by `rename`.
package final class VectorFileMapping: @unchecked Sendable {
    // Safety: the mapping is PROT_READ and never changed after init; it lives until deinit.
    let base: UnsafeRawPointer
    private let length: Int
    /// The row-major floats inside the mapping.
    package let values: UnsafeBufferPointer<Float>

    /// Maps `length` bytes of `descriptor`; nil when `mmap` fails.
    init?(descriptor: Int32, length: Int, floatsAt offset: Int, floatCount: Int, mode: VectorCache.LoadMode) {
        precondition(offset % MemoryLayout<Float>.alignment == 0 && offset + 4 * floatCount <= length)
        var flags = MAP_SHARED
        if mode == .map { flags |= MAP_POPULATE }
        guard let raw = mmap(nil, length, PROT_READ, flags, descriptor, 0), raw != MAP_FAILED else { return nil }
        switch mode {
        case .mapWillNeed: madvise(raw, length, MADV_WILLNEED)
        case .mapSequential: madvise(raw, length, MADV_SEQUENTIAL)
        default: break
        }
        base = UnsafeRawPointer(raw)
        self.length = length
        values = UnsafeBufferPointer(start: (base + offset).assumingMemoryBound(to: Float.self), count: floatCount)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), length) }
}
