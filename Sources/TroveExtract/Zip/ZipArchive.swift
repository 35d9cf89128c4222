import CZlib
import TroveIngest

/// A zip container held in memory (DOCX, ODT, PPTX, EPUB), its entries inflated on demand under `ExtractionLimits`'
/// caps: entry count, each entry's declared and actual size, the total read, the inflation ratio. Only stored and
/// deflated entries are read, encrypted ones are refused, and nothing is written to disk (names are only names).
package struct ZipArchive {
    /// One entry of the central directory.
    package struct Entry: Sendable, Equatable {
        /// The entry's path inside the archive, e.g. `word/document.xml`.
        package var name: String
        /// 0 stored, 8 deflated; anything else is refused when read.
        package var method: UInt16
        /// General-purpose flags (bit 0: encrypted).
        package var flags: UInt16
        package var crc32: UInt32
        package var compressedSize: UInt64
        /// The inflated size the directory declares (checked against the actual one when read).
        package var size: UInt64
        package var localHeaderOffset: UInt64

        /// Traditional (bit 0) or AES (method 99) encryption.
        package var isEncrypted: Bool { flags & 1 != 0 || method == 99 }
    }

    /// Entries smaller than this are exempt from the ratio cap: small parts of repeated markup legitimately compress
    /// past 100:1, and cannot exhaust memory whatever their ratio.
    static let ratioFloor: UInt64 = 1 << 20

    /// The central directory, in its order.
    package let entries: [Entry]
    private let bytes: [UInt8]
    private let limits: ExtractionLimits
    private let positions: [String: Int]
    /// Inflated bytes read so far, against `maxZipTotalBytes`.
    private var total: UInt64 = 0

    /// Reads the central directory of `bytes`; `damaged` when they are not a zip archive or break a cap.
    package init(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure) {
        guard bytes.count <= limits.maxInputBytes else {
            throw ExtractionFailure(.damaged, "file larger than \(ByteSize.format(Int64(limits.maxInputBytes)))")
        }
        entries = try ZipDirectory.entries(of: bytes, limits: limits)
        var positions: [String: Int] = [:]
        for (position, entry) in entries.enumerated() where positions[entry.name] == nil {
            positions[entry.name] = position  // the first of duplicate names wins
        }
        self.bytes = bytes
        self.limits = limits
        self.positions = positions
    }

    /// Whether an entry of that name exists.
    package func contains(_ name: String) -> Bool { positions[name] != nil }

    /// The inflated bytes of entry `name`, or nil when there is none. `encrypted` for an encrypted entry, `damaged`
    /// when it breaks a cap, is truncated, its sizes lie or its CRC does not match.
    package mutating func read(_ name: String) throws(ExtractionFailure) -> [UInt8]? {
        guard let position = positions[name] else { return nil }
        let entry = entries[position]
        guard !entry.isEncrypted else {
            throw ExtractionFailure(.encrypted, "zip entry \(name) is encrypted (a password is needed)")
        }
        try checkCaps(entry)
        let data = try compressedData(of: entry)
        let inflated: [UInt8]
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.size else {
                throw ExtractionFailure(.damaged, "zip entry \(name) is stored but its two sizes differ")
            }
            inflated = Array(data)
        case 8:
            inflated = try Self.inflate(data, size: Int(entry.size), name: name)
        default:
            throw ExtractionFailure(
                .damaged,
                "zip entry \(name) uses compression method \(entry.method) (only stored and deflate are read)")
        }
        let crc = inflated.withUnsafeBufferPointer { buffer in
            UInt32(CZlib.crc32(0, buffer.baseAddress, UInt32(buffer.count)))
        }
        guard crc == entry.crc32 else {
            throw ExtractionFailure(.damaged, "zip entry \(name) fails its CRC check")
        }
        total += entry.size
        return inflated
    }

    /// The entry's declared size against the entry, total and ratio caps, before anything is inflated.
    private func checkCaps(_ entry: Entry) throws(ExtractionFailure) {
        let name = entry.name
        guard entry.size <= UInt64(limits.maxZipEntryBytes) else {
            throw ExtractionFailure(
                .damaged, "zip entry \(name) declares \(Self.format(entry.size)) (over the "
                    + "\(Self.format(UInt64(limits.maxZipEntryBytes))) cap)")
        }
        guard total + entry.size <= UInt64(limits.maxZipTotalBytes) else {
            throw ExtractionFailure(
                .damaged, "zip entries inflate past \(Self.format(UInt64(limits.maxZipTotalBytes))) in all")
        }
        let ratio = UInt64(max(1, limits.maxZipRatio))
        guard entry.size <= Self.ratioFloor || entry.size / ratio <= entry.compressedSize else {
            throw ExtractionFailure(
                .damaged, "zip entry \(name) would inflate more than \(ratio):1 (a zip bomb?)")
        }
    }

    /// The entry's compressed bytes, after its local header; `damaged` when they run past the file.
    private func compressedData(of entry: Entry) throws(ExtractionFailure) -> ArraySlice<UInt8> {
        let reader = LittleEndian(bytes)
        guard entry.localHeaderOffset < UInt64(bytes.count), case let header = Int(entry.localHeaderOffset),
            reader.u32(header) == 0x0403_4b50, let nameLength = reader.u16(header + 26),
            let extraLength = reader.u16(header + 28)
        else { throw ExtractionFailure(.damaged, "zip entry \(entry.name) has no local header where it should") }
        let start = header + 30 + Int(nameLength) + Int(extraLength)
        guard start <= bytes.count, entry.compressedSize <= UInt64(bytes.count - start) else {
            throw ExtractionFailure(.damaged, "zip entry \(entry.name) runs past the end of the file (truncated?)")
        }
        return bytes[start..<start + Int(entry.compressedSize)]
    }

    /// Raw deflate `data` into exactly `size` bytes: one byte more, or fewer, means the declared size lied.
    private static func inflate(_ data: ArraySlice<UInt8>, size: Int, name: String) throws(ExtractionFailure)
        -> [UInt8]
    {
        var output = [UInt8](repeating: 0, count: size + 1)
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ExtractionFailure(.outOfMemory, "zlib could not start inflating \(name)")
        }
        defer { inflateEnd(&stream) }
        let (status, produced) = data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                let status = CZlib.inflate(&stream, Z_FINISH)
                return (status, out.count - Int(stream.avail_out))
            }
        }
        guard produced <= size else {
            throw ExtractionFailure(.damaged, "zip entry \(name) inflates past its declared size (lying sizes)")
        }
        switch status {
        case Z_STREAM_END where produced == size:
            output.removeLast()
            return output
        case Z_STREAM_END:
            throw ExtractionFailure(.damaged, "zip entry \(name) inflates to less than its declared size (lying sizes)")
        default:
            throw ExtractionFailure(.damaged, "zip entry \(name) holds damaged or truncated deflate data")
        }
    }

    /// A byte count for a message (1.0 GB), saturating rather than trapping on a hostile 64-bit size.
    private static func format(_ bytes: UInt64) -> String {
        ByteSize.format(Int64(min(bytes, UInt64(Int64.max))))
    }
}
