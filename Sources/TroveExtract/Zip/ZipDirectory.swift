import TroveIngest

/// The central directory of a zip archive held in memory: found from the end-of-central-directory record (ZIP64's
/// too), every entry's name, method, flags, sizes and where its local header is. Nothing is inflated here.
enum ZipDirectory {
    /// The entries, in directory order, or `damaged` naming what is wrong (not a zip, truncated, too many entries).
    static func entries(of bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure) -> [ZipArchive.Entry] {
        let reader = LittleEndian(bytes)
        guard let end = endRecord(in: reader) else {
            throw ExtractionFailure(.damaged, notAZip(bytes))
        }
        var count = UInt64(reader.u16(end + 10)!)
        var size = UInt64(reader.u32(end + 12)!)
        var offset = UInt64(reader.u32(end + 16)!)
        guard reader.u16(end + 4) == 0, reader.u16(end + 6) == 0 else {
            throw ExtractionFailure(.damaged, "zip archive split across several files")
        }
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            // ZIP64: the real values are in the ZIP64 end record, which the locator just before this one points at.
            guard end >= 20, reader.u32(end - 20) == 0x0706_4b50, let record = reader.u64(end - 12),
                record < UInt64(bytes.count), reader.u32(Int(record)) == 0x0606_4b50,
                let count64 = reader.u64(Int(record) + 32), let size64 = reader.u64(Int(record) + 40),
                let offset64 = reader.u64(Int(record) + 48)
            else { throw ExtractionFailure(.damaged, "zip64 end of central directory missing or damaged") }
            (count, size, offset) = (count64, size64, offset64)
        }
        guard count <= UInt64(limits.maxZipEntries) else {
            throw ExtractionFailure(
                .damaged, "zip archive holds \(count) entries (over the \(limits.maxZipEntries) cap)")
        }
        guard offset <= UInt64(end), size <= UInt64(end) - offset else {
            throw ExtractionFailure(.damaged, "zip central directory lies outside the file (truncated?)")
        }
        var entries: [ZipArchive.Entry] = []
        entries.reserveCapacity(Int(count))
        var at = Int(offset)
        for _ in 0..<count {
            guard let (entry, next) = entry(at: at, in: reader) else {
                throw ExtractionFailure(.damaged, "zip central directory damaged at entry \(entries.count + 1)")
            }
            entries.append(entry)
            at = next
        }
        return entries
    }

    /// The offset of the end-of-central-directory record: the last one in the final 64 KiB + 22 bytes (its comment
    /// may be up to 65,535 bytes long).
    private static func endRecord(in reader: LittleEndian) -> Int? {
        let count = reader.bytes.count
        guard count >= 22 else { return nil }
        var at = count - 22
        let lowest = max(0, count - 22 - 0xFFFF)
        while at >= lowest {
            if reader.u32(at) == 0x0605_4b50, let comment = reader.u16(at + 20), at + 22 + Int(comment) <= count {
                return at
            }
            at -= 1
        }
        return nil
    }

    /// One central directory record at `at`, and where the next one starts.
    private static func entry(at: Int, in reader: LittleEndian) -> (ZipArchive.Entry, Int)? {
        guard reader.u32(at) == 0x0201_4b50, let flags = reader.u16(at + 8), let method = reader.u16(at + 10),
            let crc = reader.u32(at + 16), let compressed = reader.u32(at + 20), let size = reader.u32(at + 24),
            let nameLength = reader.u16(at + 28), let extraLength = reader.u16(at + 30),
            let commentLength = reader.u16(at + 32), let local = reader.u32(at + 42)
        else { return nil }
        let nameStart = at + 46
        let extraStart = nameStart + Int(nameLength)
        let next = extraStart + Int(extraLength) + Int(commentLength)
        guard next <= reader.bytes.count else { return nil }
        var entry = ZipArchive.Entry(
            name: String(decoding: reader.bytes[nameStart..<extraStart], as: UTF8.self), method: method, flags: flags,
            crc32: crc, compressedSize: UInt64(compressed), size: UInt64(size), localHeaderOffset: UInt64(local))
        // ZIP64's extra field (id 1) holds, in this order, each of the three values saturated in the record.
        var field = extraStart
        while field + 4 <= extraStart + Int(extraLength), let id = reader.u16(field),
            let length = reader.u16(field + 2)
        {
            if id == 1 {
                var value = field + 4
                let limit = value + Int(length)
                func wide(_ narrow: UInt64) -> UInt64? {
                    guard narrow == 0xFFFF_FFFF else { return narrow }
                    guard value + 8 <= limit, let wide = reader.u64(value) else { return nil }
                    value += 8
                    return wide
                }
                guard let size = wide(entry.size), let compressed = wide(entry.compressedSize),
                    let local = wide(entry.localHeaderOffset)
                else { return nil }
                (entry.size, entry.compressedSize, entry.localHeaderOffset) = (size, compressed, local)
            }
            field += 4 + Int(length)
        }
        return (entry, next)
    }

    /// Why bytes that are not a zip archive were refused, naming what they look like when that is known.
    private static func notAZip(_ bytes: [UInt8]) -> String {
        let magic: [(prefix: [UInt8], name: String)] = [
            (Array("%PDF-".utf8), "a PDF"), ([0xD0, 0xCF, 0x11, 0xE0], "an old Office (OLE2) file"),
            (Array("{\\rtf".utf8), "an RTF file"), (Array("<".utf8), "text or markup"),
        ]
        guard let match = magic.first(where: { bytes.starts(with: $0.prefix) }) else { return "not a zip archive" }
        return "not a zip archive (the file is \(match.name))"
    }
}

/// Bounds-checked little-endian reads: nil past the end, never a trap.
struct LittleEndian {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at <= bytes.count - 2 else { return nil }
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    func u32(_ at: Int) -> UInt32? {
        guard let low = u16(at), let high = u16(at + 2) else { return nil }
        return UInt32(low) | UInt32(high) << 16
    }

    func u64(_ at: Int) -> UInt64? {
        guard let low = u32(at), let high = u32(at + 4) else { return nil }
        return UInt64(low) | UInt64(high) << 32
    }
}
