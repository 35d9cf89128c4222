import TroveSystem

/// The hash that identifies a document's bytes and a chunk's embedding text (the key under which vectors are reused).
public enum ContentHash {
    /// Lowercase hex SHA-256 of `bytes`.
    public static func sha256Hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        SHA256.hex(bytes)
    }
}
