/// Byte counts as people read them, the one rule every message and column follows: binary units (÷1024, as
/// `du -h` and `--max-file-size`'s suffixes count), one decimal, written `KB`, `MB`, `GB`, `TB`, and bytes in
/// words below a kilobyte, so a message reads like a sentence: `512 bytes`, `3.5 KB`, `12.0 MB`.
public enum ByteSize {
    /// `bytes` in words.
    public static func format(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let units: [(scale: Int64, name: String)] = [(1 << 40, "TB"), (1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")]
        let unit = units.first { bytes >= $0.scale }!
        // Tenths, rounded half up, in integers: no float can make 1.05 MB read 1.0.
        let tenths = bytes / unit.scale * 10 + (bytes % unit.scale * 10 + unit.scale / 2) / unit.scale
        return "\(tenths / 10).\(tenths % 10) \(unit.name)"
    }
}
