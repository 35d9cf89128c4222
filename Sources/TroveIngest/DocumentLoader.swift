#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TroveSystem

/// A file's decoded text.
package struct LoadedDocument: Sendable, Equatable {
    /// The decoded text, byte-order mark removed, line endings as in the file (the chunker treats CRLF and CR as LF).
    package var text: String
    /// True when invalid code units were replaced with U+FFFD (reported to the user).
    package var replacedInvalidUTF8: Bool
    /// Lowercase hex SHA-256 of the file's bytes.
    package var contentHash: String
    /// How the file was encoded: `UTF-8`, `UTF-16LE`, `UTF-16BE`, `UTF-32LE`, `UTF-32BE` after their BOM, or the
    /// legacy encoding detected for text that is not UTF-8 (e.g. `ISO-8859-1`, `SHIFT_JIS`, `GB18030`).
    package var encoding: String

    /// A document from its parts.
    package init(text: String, replacedInvalidUTF8: Bool, contentHash: String, encoding: String = "UTF-8") {
        self.text = text
        self.replacedInvalidUTF8 = replacedInvalidUTF8
        self.contentHash = contentHash
        self.encoding = encoding
    }

    /// The warning to print for this document, e.g. `notes/x.md: invalid UTF-8 replaced with U+FFFD`; nil when
    /// the file decoded cleanly.
    package func decodingWarning(displayPath: String) -> String? {
        replacedInvalidUTF8 ? "\(displayPath): invalid \(encoding) replaced with U+FFFD" : nil
    }
}

/// Reads a file: NUL-byte sniff, size limit, UTF-8 (or a detected legacy encoding, else U+FFFD) decoding, hashing.
package enum DocumentLoader {
    /// Bytes sniffed for a NUL to call a file binary (what git and grep look at, give or take).
    package static let binarySniffLength = 8192

    /// Throws `SkippedFile` for binary, oversized or unreadable files. The `SkippedFile.path` is `path` as given;
    /// use `load(_:maxFileSize:)` to report root-relative paths.
    package static func load(path: String, maxFileSize: Int64) throws -> LoadedDocument {
        try load(path: path, displayPath: path, maxFileSize: maxFileSize)
    }

    /// Loads a crawled file, reporting skips with its root-relative path (`skipped notes/a.bin: binary file`).
    package static func load(_ file: CrawledFile, maxFileSize: Int64) throws -> LoadedDocument {
        try load(path: file.absolutePath, displayPath: file.relativePath, maxFileSize: maxFileSize)
    }

    /// Loads `path`, naming it `displayPath` in a `SkippedFile`.
    package static func load(path: String, displayPath: String, maxFileSize: Int64) throws -> LoadedDocument {
        let bytes = try readAll(path: path, displayPath: displayPath, maxFileSize: maxFileSize)
        return try decode(bytes, displayPath: displayPath)
    }

    /// Decodes bytes already in memory: a UTF-16 or UTF-32 BOM (whose text is full of NULs, so it comes before the
    /// binary sniff), binary sniff, UTF-8 BOM, UTF-8; text that is not valid UTF-8 in the legacy encoding detected
    /// for it (`LegacyText`), else UTF-8 with replacement; hash.
    package static func decode(_ bytes: [UInt8], displayPath: String) throws -> LoadedDocument {
        if let wide = decodeWide(bytes) { return wide }
        if bytes.prefix(binarySniffLength).contains(0) {
            throw SkippedFile(path: displayPath, reason: .binary)
        }
        let hash = SHA256.hex(bytes)
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
        if let valid = String(validating: body, as: UTF8.self) {
            return LoadedDocument(text: valid, replacedInvalidUTF8: false, contentHash: hash)
        }
        if let legacy = LegacyText.decode(body) {
            return LoadedDocument(
                text: legacy.text, replacedInvalidUTF8: false, contentHash: hash, encoding: legacy.encoding)
        }
        return LoadedDocument(text: String(decoding: body, as: UTF8.self), replacedInvalidUTF8: true, contentHash: hash)
    }

    /// Text after a UTF-32 or UTF-16 byte-order mark (UTF-32 first: `FF FE 00 00` also starts UTF-16LE); nil
    /// without one. A trailing partial code unit or an invalid one becomes U+FFFD.
    static func decodeWide(_ bytes: [UInt8]) -> LoadedDocument? {
        let marks: [(mark: [UInt8], name: String, width: Int, bigEndian: Bool)] = [
            ([0xFF, 0xFE, 0x00, 0x00], "UTF-32LE", 4, false), ([0x00, 0x00, 0xFE, 0xFF], "UTF-32BE", 4, true),
            ([0xFF, 0xFE], "UTF-16LE", 2, false), ([0xFE, 0xFF], "UTF-16BE", 2, true),
        ]
        guard let found = marks.first(where: { bytes.starts(with: $0.mark) }) else { return nil }
        let body = bytes.dropFirst(found.width)
        let units = stride(from: body.startIndex, to: body.endIndex - (body.count % found.width), by: found.width)
            .map { start in
                body[start..<start + found.width].enumerated().reduce(UInt32(0)) { value, byte in
                    let shift = found.bigEndian ? (found.width - 1 - byte.offset) * 8 : byte.offset * 8
                    return value | UInt32(byte.element) << UInt32(shift)
                }
            }
        var text = ""
        let partial = !body.count.isMultiple(of: found.width)
        var invalid = partial
        if found.width == 4 {
            for unit in units {
                if let scalar = Unicode.Scalar(unit) { text.unicodeScalars.append(scalar) } else {
                    text.unicodeScalars.append("\u{FFFD}")
                    invalid = true
                }
            }
        } else {
            var iterator = units.map { UInt16($0) }.makeIterator()
            var decoder = UTF16()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): text.unicodeScalars.append(scalar)
                case .emptyInput: break loop
                case .error:
                    text.unicodeScalars.append("\u{FFFD}")
                    invalid = true
                }
            }
        }
        if partial { text.unicodeScalars.append("\u{FFFD}") }
        return LoadedDocument(
            text: text, replacedInvalidUTF8: invalid, contentHash: SHA256.hex(bytes), encoding: found.name)
    }

    /// One open, one fstat, reads until EOF; the size is checked before and after reading (the file may grow).
    private static func readAll(path: String, displayPath: String, maxFileSize: Int64) throws -> [UInt8] {
        // O_NONBLOCK so a FIFO named `x.md` cannot hang the indexer on open.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw SkippedFile(path: displayPath, reason: .unreadable(POSIXFile.errorText(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw SkippedFile(path: displayPath, reason: .unreadable(POSIXFile.errorText(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw SkippedFile(path: displayPath, reason: .unreadable("not a regular file"))
        }
        let size = Int64(info.st_size)
        if size > maxFileSize {
            throw SkippedFile(path: displayPath, reason: .tooLarge(size: size, limit: maxFileSize))
        }
        var bytes = [UInt8](repeating: 0, count: Int(size) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                if Int64(count) > maxFileSize {
                    throw SkippedFile(path: displayPath, reason: .tooLarge(size: Int64(count), limit: maxFileSize))
                }
                bytes.append(contentsOf: repeatElement(0, count: max(4096, count / 2)))
            }
            let got = bytes.withUnsafeMutableBytes { buffer in
                FileDescriptor(fd).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
            }
            if got < 0 {
                throw SkippedFile(path: displayPath, reason: .unreadable(POSIXFile.errorText(errno)))
            }
            if got == 0 { break }
            count += got
        }
        if Int64(count) > maxFileSize {
            throw SkippedFile(path: displayPath, reason: .tooLarge(size: Int64(count), limit: maxFileSize))
        }
        bytes.removeSubrange(count...)
        return bytes
    }
}

/// Small POSIX helpers shared by the crawler and the loader.
package enum POSIXFile {
    /// `strerror` in lowercase, as our messages are (`permission denied`).
    package static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text).lowercased()
    }
}
