#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file's decoded text.
public struct LoadedDocument: Sendable, Equatable {
    /// The decoded text, UTF-8 BOM removed, line endings as in the file (the chunker treats CRLF and CR as LF).
    public var text: String
    /// True when invalid UTF-8 was replaced with U+FFFD (reported to the user).
    public var replacedInvalidUTF8: Bool
    /// Lowercase hex SHA-256 of the file's bytes.
    public var contentHash: String

    /// A document from its parts.
    public init(text: String, replacedInvalidUTF8: Bool, contentHash: String) {
        self.text = text
        self.replacedInvalidUTF8 = replacedInvalidUTF8
        self.contentHash = contentHash
    }

    /// The warning to print for this document, e.g. `notes/x.md: invalid UTF-8 replaced with U+FFFD`; nil when
    /// the file was valid UTF-8.
    public func decodingWarning(displayPath: String) -> String? {
        replacedInvalidUTF8 ? "\(displayPath): invalid UTF-8 replaced with U+FFFD" : nil
    }
}

/// Reads a file: NUL-byte sniff, size limit, UTF-8 decoding with replacement, hashing.
public enum DocumentLoader {
    /// Bytes sniffed for a NUL to call a file binary (what git and grep look at, give or take).
    public static let binarySniffLength = 8192

    /// Throws `SkippedFile` for binary, oversized or unreadable files. The `SkippedFile.path` is `path` as given;
    /// use `load(_:maxFileSize:)` to report root-relative paths.
    public static func load(path: String, maxFileSize: Int64) throws -> LoadedDocument {
        try load(path: path, displayPath: path, maxFileSize: maxFileSize)
    }

    /// Loads a crawled file, reporting skips with its root-relative path (`skipped notes/a.bin: binary file`).
    public static func load(_ file: CrawledFile, maxFileSize: Int64) throws -> LoadedDocument {
        try load(path: file.absolutePath, displayPath: file.relativePath, maxFileSize: maxFileSize)
    }

    /// Loads `path`, naming it `displayPath` in a `SkippedFile`.
    public static func load(path: String, displayPath: String, maxFileSize: Int64) throws -> LoadedDocument {
        let bytes = try readAll(path: path, displayPath: displayPath, maxFileSize: maxFileSize)
        return try decode(bytes, displayPath: displayPath)
    }

    /// Decodes bytes already in memory: binary sniff, BOM, UTF-8 with replacement, hash.
    public static func decode(_ bytes: [UInt8], displayPath: String) throws -> LoadedDocument {
        if bytes.prefix(binarySniffLength).contains(0) {
            throw SkippedFile(path: displayPath, reason: .binary)
        }
        let hash = ContentHash.sha256Hex(bytes)
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
        if let valid = String(validating: body, as: UTF8.self) {
            return LoadedDocument(text: valid, replacedInvalidUTF8: false, contentHash: hash)
        }
        return LoadedDocument(text: String(decoding: body, as: UTF8.self), replacedInvalidUTF8: true, contentHash: hash)
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
                read(fd, buffer.baseAddress! + count, buffer.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
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
enum POSIXFile {
    /// `strerror` in lowercase, as our messages are (`permission denied`).
    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text).lowercased()
    }
}
