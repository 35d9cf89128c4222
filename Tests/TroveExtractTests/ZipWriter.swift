import CZlib

/// Writes zip archives in memory for the tests: honest ones, and ones whose sizes, flags or ZIP64 fields lie as a
/// test asks.
struct ZipWriter {
    /// One entry as it will be written.
    struct Entry {
        var name: String
        var data: [UInt8]
        var deflate = true
        /// The inflated size written in the headers (the real one when nil).
        var declaredSize: UInt64?
        var flags: UInt16 = 0
        /// Sizes written as 0xFFFFFFFF with the real ones in a ZIP64 extra field.
        var zip64 = false

        init(_ name: String, _ text: String, deflate: Bool = true) {
            self.name = name
            self.data = Array(text.utf8)
            self.deflate = deflate
        }

        init(_ name: String, bytes: [UInt8], deflate: Bool = true) {
            self.name = name
            self.data = bytes
            self.deflate = deflate
        }
    }

    /// The archive holding `entries`, in order.
    static func archive(_ entries: [Entry]) -> [UInt8] {
        archive(entries.map { entry in (entry, entry.deflate ? deflated(entry.data) : entry.data, crc(entry.data)) })
    }

    /// The archive, from each entry's already compressed bytes and CRC (for bombs too large to hold inflated).
    static func archive(_ prepared: [(entry: Entry, compressed: [UInt8], crc: UInt32)]) -> [UInt8] {
        var out: [UInt8] = []
        var directory: [UInt8] = []
        for (entry, compressed, crc) in prepared {
            let offset = UInt32(out.count)
            let size = entry.declaredSize ?? UInt64(entry.data.count)
            let name = Array(entry.name.utf8)
            var extra: [UInt8] = []
            if entry.zip64 {
                extra = le16(1) + le16(16) + le64(size) + le64(UInt64(compressed.count))
            }
            let narrowSize = entry.zip64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: size)
            let narrowCompressed = entry.zip64 ? 0xFFFF_FFFF : UInt32(compressed.count)
            let method: UInt16 = entry.deflate ? 8 : 0
            out += le32(0x0403_4b50) + le16(entry.zip64 ? 45 : 20) + le16(entry.flags) + le16(method) + le32(0)
            out += le32(crc) + le32(narrowCompressed) + le32(narrowSize) + le16(UInt16(name.count))
            out += le16(UInt16(extra.count)) + name + extra + compressed
            directory += le32(0x0201_4b50) + le16(45) + le16(entry.zip64 ? 45 : 20) + le16(entry.flags)
            directory += le16(method) + le32(0) + le32(crc) + le32(narrowCompressed) + le32(narrowSize)
            directory += le16(UInt16(name.count)) + le16(UInt16(extra.count)) + le16(0) + le16(0) + le16(0)
            directory += le32(0) + le32(offset) + name + extra
        }
        let start = UInt32(out.count)
        out += directory
        out += le32(0x0605_4b50) + le16(0) + le16(0) + le16(UInt16(prepared.count)) + le16(UInt16(prepared.count))
        out += le32(UInt32(directory.count)) + le32(start) + le16(0)
        return out
    }

    /// Raw deflate (no zlib header), as zip stores it.
    static func deflated(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        deflateInit2_(&stream, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))) + 16)
        let produced = data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                deflate(&stream, Z_FINISH)
                return out.count - Int(stream.avail_out)
            }
        }
        return Array(output.prefix(produced))
    }

    /// The raw deflate of `count` zero bytes and their CRC, made a megabyte at a time (a bomb never held whole).
    static func deflatedZeros(_ count: Int) -> (compressed: [UInt8], crc: UInt32) {
        var stream = z_stream()
        // Run-length matches only: zeros still shrink about 1,000:1, many times faster than the default strategy.
        deflateInit2_(&stream, 1, Z_DEFLATED, -MAX_WBITS, 9, Z_RLE, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var crc: UInt = 0
        var left = count
        while left > 0 {
            let take = min(left, chunk.count)
            left -= take
            chunk.withUnsafeBufferPointer { input in
                crc = CZlib.crc32(crc, input.baseAddress, UInt32(take))
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(take)
                repeat {
                    buffer.withUnsafeMutableBufferPointer { out in
                        stream.next_out = out.baseAddress
                        stream.avail_out = UInt32(out.count)
                        deflate(&stream, left == 0 ? Z_FINISH : Z_NO_FLUSH)
                        output += out.prefix(out.count - Int(stream.avail_out))
                    }
                } while stream.avail_out == 0 || (left == 0 && stream.avail_in > 0)
            }
        }
        return (output, UInt32(crc))
    }

    static func crc(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, UInt32($0.count))) }
    }

    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) } }
    private static func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(value >> ($0 * 8) & 0xFF) } }
}
