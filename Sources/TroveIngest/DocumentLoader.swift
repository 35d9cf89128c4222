/// The kind of a text file, which decides how it is chunked.
public enum DocumentKind: Sendable, Equatable {
    case markdown, plainText, restructuredText, org
    case code(language: String)

    /// The kind for a path's extension, or nil when the file is not one we index as text.
    public init?(path: String) { fatalError("unimplemented") }
}

/// A file's decoded text.
public struct LoadedDocument: Sendable, Equatable {
    public var text: String
    /// True when invalid UTF-8 was replaced with U+FFFD (reported to the user).
    public var replacedInvalidUTF8: Bool
    /// Lowercase hex SHA-256 of the file's bytes.
    public var contentHash: String
}

/// Reads a file: NUL-byte sniff, size limit, UTF-8 decoding with replacement, hashing.
public enum DocumentLoader {
    /// Throws `SkippedFile` for binary, oversized or unreadable files.
    public static func load(path: String, maxFileSize: Int64) throws -> LoadedDocument { fatalError("unimplemented") }
}

/// SHA-256, since Foundation on Linux has none.
public enum ContentHash {
    /// Lowercase hex SHA-256 of `bytes`.
    public static func sha256Hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        fatalError("unimplemented")
    }
}
