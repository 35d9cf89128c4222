@preconcurrency import Glibc
import TroveSystem

/// The encoder's re-laid-out layer matrices (see `Weights`) in a file beside the model, memory-mapped by every later
/// process instead of copying 42 MB on each load: `trove embed` of one query spent ~40% of its CPU time re-laying out
/// weights (BENCHMARKS.md#model-load), and `CblasTrans` on the file's own layout made that query ~17% slower.
///
/// File: `model.safetensors.<kernel>-v<version>.layout`, mode 0600, a 256-byte header then the floats. The header
/// holds the key (layout version, the OpenBLAS kernel family, the SHA-256 of `model.safetensors`) and what makes the
/// hash cheap to trust: the model file's device, inode, size, modification and change times when it was hashed. A
/// process checks those with one `fstat` instead of hashing 90 MB, then a checksum of the floats (one pass at memory
/// speed, so damage inside the file is caught too). A file that does not check out is rebuilt: the model hashed, the
/// matrices re-laid out, written to a temporary file and renamed into place. Where the folder is read-only the
/// weights are re-laid out in memory, as before.
///
/// Header, little-endian: magic `TROVEWL1` (byte 0), layout version (8), kernel name (16, 32 bytes NUL-padded),
/// SHA-256 in hex (48, 64 bytes), the model file's device, inode, size, mtime s/ns, ctime s/ns (112, seven words),
/// float count (168), checksum (176); the floats start at 256.
enum WeightsCache {
    /// Bump whenever `Weights` lays the floats out differently.
    static let layoutVersion: UInt64 = 1
    static let magic: UInt64 = 0x314C_5745_564F_5254  // "TROVEWL1" little-endian
    static let headerSize = 256

    /// What a cache file must match.
    struct Key: Equatable {
        var kernel: String
        var source: FileIdentity
        var floatCount: Int
    }

    /// The file for `kernel` beside the model in `folder`.
    static func path(folder: String, kernel: String) -> String {
        let family = String(
            kernel.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        return folder + "/model.safetensors.\(family.isEmpty ? "unknown" : family)-v\(layoutVersion).layout"
    }

    /// The model's SHA-256 that the cache at `path` records, from its header alone (one `pread`, nothing mapped); nil
    /// when it is missing or of another key or size. Its floats are checked when it is mapped (`map`).
    static func recordedSHA256(_ path: String, key: Key) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: headerSize)
        guard sizeMatches(descriptor, key: key),
            bytes.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, headerSize, 0) }) == headerSize
        else { return nil }
        let header = bytes.withUnsafeBytes { Header($0) }
        return header.matches(key) && header.sha256.utf8.count == 64 ? header.sha256 : nil
    }

    /// The cache at `path` mapped read-only, with the model's SHA-256 it records; nil when it is missing, of
    /// another key or size, or its floats do not match their checksum.
    static func map(_ path: String, key: Key) -> (floats: MappedFloats, sha256: String)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard sizeMatches(descriptor, key: key),
            let mapping = MappedFloats(
                descriptor: descriptor, length: headerSize + 4 * key.floatCount, floatsAt: headerSize,
                count: key.floatCount)
        else { return nil }
        let header = Header(UnsafeRawBufferPointer(start: mapping.base, count: headerSize))
        guard header.matches(key),
            checksum(UnsafeRawBufferPointer(start: mapping.base + headerSize, count: 4 * key.floatCount))
                == header.checksum
        else { return nil }
        return (mapping, header.sha256)
    }

    /// Whether the open file is a regular file of the size `key` makes.
    private static func sizeMatches(_ descriptor: Int32, key: Key) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
            && Int(info.st_size) == headerSize + 4 * key.floatCount
    }

    /// Writes `floats` under `key` (with the model's `sha256`) atomically (`AtomicFile`, mode 0600: the file is
    /// mapped by later processes as trusted weights); false when the folder cannot be written.
    @discardableResult
    static func write(_ floats: UnsafeBufferPointer<Float>, key: Key, sha256: String, to path: String) -> Bool {
        let payload = UnsafeRawBufferPointer(floats)
        let header = Header(
            magic: magic, layoutVersion: layoutVersion, kernel: key.kernel, sha256: sha256, source: key.source,
            floatCount: UInt64(floats.count), checksum: checksum(payload))
        return AtomicFile.write(to: path) { file in
            header.bytes.withUnsafeBytes { file.write(all: $0) } && file.write(all: payload)
        }
    }

    /// The lowercase hex SHA-256 of `bytes` (the whole model file), computed only when a cache is built.
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> String {
        var hasher = SHA256()
        hasher.update(bytes.bindMemory(to: UInt8.self))
        return hasher.finalizeHex()
    }

    /// A position-dependent checksum of the floats (Fletcher-style sums over 32-bit words, eight lanes): any changed
    /// or moved word changes it. It guards against damage, not against someone forging a file in a 0600 folder.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var first = SIMD8<UInt32>(repeating: 0)
        var second = SIMD8<UInt32>(repeating: 0)
        let stride = MemoryLayout<SIMD8<UInt32>>.size
        var offset = 0
        while offset + stride <= bytes.count {
            first &+= bytes.loadUnaligned(fromByteOffset: offset, as: SIMD8<UInt32>.self)
            second &+= first
            offset += stride
        }
        var tail: UInt32 = 0
        while offset < bytes.count {
            tail = tail &* 31 &+ UInt32(bytes[offset])
            offset += 1
        }
        var result = FNV1a()
        for lane in 0..<8 {
            for word in [first[lane], second[lane]] { result.combine(word) }
        }
        result.combine(tail)
        return result.value
    }

    /// The header's fields; little-endian on disk.
    struct Header {
        var magic: UInt64 = 0
        var layoutVersion: UInt64 = 0
        /// The OpenBLAS kernel family, at most 32 bytes.
        var kernel = ""
        /// Lowercase hex, 64 bytes.
        var sha256 = ""
        var source = FileIdentity()
        var floatCount: UInt64 = 0
        var checksum: UInt64 = 0

        init(
            magic: UInt64, layoutVersion: UInt64, kernel: String, sha256: String, source: FileIdentity,
            floatCount: UInt64, checksum: UInt64
        ) {
            self.magic = magic
            self.layoutVersion = layoutVersion
            self.kernel = kernel
            self.sha256 = sha256
            self.source = source
            self.floatCount = floatCount
            self.checksum = checksum
        }

        /// Whether this header is of `key`'s layout, kernel, model file and size.
        func matches(_ key: Key) -> Bool {
            magic == WeightsCache.magic && layoutVersion == WeightsCache.layoutVersion && kernel == key.kernel
                && source == key.source && floatCount == UInt64(key.floatCount)
        }

        /// Reads a header; fields of a too-short buffer stay zero.
        init(_ raw: UnsafeRawBufferPointer) {
            guard raw.count >= WeightsCache.headerSize else { return }
            func word(_ index: Int) -> UInt64 {
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self))
            }
            magic = word(0)
            layoutVersion = word(1)
            let name = raw[16..<48].prefix { $0 != 0 }
            kernel = String(decoding: name, as: UTF8.self)
            sha256 = String(decoding: raw[48..<112].prefix { $0 != 0 }, as: UTF8.self)
            source = FileIdentity(
                device: word(14), inode: word(15), size: word(16), modified: word(17), modifiedNanoseconds: word(18),
                changed: word(19), changedNanoseconds: word(20))
            floatCount = word(21)
            checksum = word(22)
        }

        var bytes: [UInt8] {
            var out = [UInt8](repeating: 0, count: WeightsCache.headerSize)
            func put(_ value: UInt64, _ index: Int) {
                withUnsafeBytes(of: value.littleEndian) { out.replaceSubrange(8 * index..<8 * index + 8, with: $0) }
            }
            put(magic, 0)
            put(layoutVersion, 1)
            let name = Array(kernel.utf8.prefix(32))
            out.replaceSubrange(16..<16 + name.count, with: name)
            let hex = Array(sha256.utf8.prefix(64))
            out.replaceSubrange(48..<48 + hex.count, with: hex)
            for (index, value) in [
                source.device, source.inode, source.size, source.modified, source.modifiedNanoseconds, source.changed,
                source.changedNanoseconds, floatCount, checksum,
            ].enumerated() { put(value, 14 + index) }
            return out
        }
    }
}

/// A read-only mapping of a whole file whose floats start at a fixed offset; unmapped with the last reference.
final class MappedFloats: @unchecked Sendable {
    // @unchecked: the mapping is read-only and immutable; unmapped only in deinit.
    let base: UnsafeRawPointer
    let length: Int
    let floats: UnsafePointer<Float>

    init?(descriptor: Int32, length: Int, floatsAt offset: Int, count: Int) {
        guard length > 0, offset % MemoryLayout<Float>.alignment == 0, offset + 4 * count <= length,
            // POPULATE: the checksum reads every page at once, so the page tables are filled in one call
            // instead of one fault per 64 KB.
            let mapped = mmap(nil, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, descriptor, 0), mapped != MAP_FAILED
        else { return nil }
        base = UnsafeRawPointer(mapped)
        self.length = length
        floats = (base + offset).assumingMemoryBound(to: Float.self)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), length) }
}
