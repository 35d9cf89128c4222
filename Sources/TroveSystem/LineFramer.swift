import Foundation

/// Splits a byte stream into lines, however it arrives in chunks, with a cap on a line's length: a longer line is
/// dropped up to its newline and reported as one `.oversized`, so a peer cannot make a server hold unbounded memory.
/// A line's CR before its newline is dropped, and blank lines are skipped. `trove mcp` frames its stdin with it, and
/// both ends of `trove serve`'s socket their one line each.
package struct LineFramer: Sendable {
    /// One framed piece of input.
    package enum Piece: Equatable, Sendable {
        /// A line without its newline.
        case line(Data)
        /// A line longer than the cap (its bytes were discarded).
        case oversized
    }

    /// The longest line accepted, in bytes without the newline.
    package let limit: Int
    private var buffer = Data()
    /// True while discarding the rest of an oversized line.
    private var skipping = false

    /// A framer of lines up to `limit` bytes.
    package init(limit: Int) { self.limit = limit }

    /// The complete lines in `bytes` (after what came before); a partial last line is kept for the next call.
    package mutating func feed(_ bytes: Data) -> [Piece] {
        var pieces: [Piece] = []
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            let part = bytes[start..<newline]
            if skipping {
                skipping = false
            } else if buffer.count + part.count > limit {
                pieces.append(.oversized)
            } else {
                buffer.append(part)
                var line = buffer
                if line.last == 0x0D { line.removeLast() }
                // Blank lines between messages are tolerated, as most stdio peers do.
                if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { pieces.append(.line(line)) }
            }
            buffer.removeAll(keepingCapacity: true)
            start = bytes.index(after: newline)
        }
        let rest = bytes[start...]
        if !skipping {
            if buffer.count + rest.count > limit {
                buffer.removeAll()
                skipping = true
                pieces.append(.oversized)
            } else {
                buffer.append(rest)
            }
        }
        return pieces
    }

    /// What is left when the input ends: a last line without a newline.
    package mutating func finish() -> [Piece] {
        defer { buffer.removeAll() }
        return skipping || buffer.isEmpty ? [] : [.line(buffer)]
    }
}
