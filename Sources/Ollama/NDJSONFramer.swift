import Foundation

/// Cuts a byte stream into newline-delimited JSON lines, whatever the chunk boundaries.
///
/// A chunk may end mid-line or even mid-character; bytes are held until their newline arrives. `\r\n` endings and
/// blank lines are tolerated.
public struct NDJSONFramer: Sendable {
    private var pending: [UInt8] = []

    /// An empty framer.
    public init() {}

    /// Adds `chunk`; returns the lines it completed, without their line endings, skipping blank ones.
    public mutating func append<Bytes: Sequence>(_ chunk: Bytes) -> [[UInt8]] where Bytes.Element == UInt8 {
        var lines: [[UInt8]] = []
        for byte in chunk {
            if byte == UInt8(ascii: "\n") {
                if let line = Self.trimmed(pending) { lines.append(line) }
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(byte)
            }
        }
        return lines
    }

    /// The last line when the stream ended without a final newline; nil when nothing is left.
    public mutating func finish() -> [UInt8]? {
        defer { pending = [] }
        return Self.trimmed(pending)
    }

    /// Bytes held back, waiting for their newline.
    public var pendingCount: Int { pending.count }

    private static func trimmed(_ line: [UInt8]) -> [UInt8]? {
        var slice = line[...]
        while let last = slice.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == 9 {
            slice = slice.dropLast()
        }
        while let first = slice.first, first == UInt8(ascii: " ") || first == 9 { slice = slice.dropFirst() }
        return slice.isEmpty ? nil : Array(slice)
    }
}
