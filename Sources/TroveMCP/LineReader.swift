import Foundation
@preconcurrency import Glibc
import TroveSystem

/// Splits a byte stream into lines, with a cap on a line's length: a longer line is dropped up to its newline and
/// reported as one `.oversized`, so a client cannot make the server hold unbounded memory.
public struct LineFramer: Sendable {
    /// One framed piece of input.
    public enum Piece: Equatable, Sendable {
        case line(Data)
        /// A line longer than the cap (its bytes were discarded).
        case oversized
    }

    /// The longest line accepted, in bytes without the newline.
    public let limit: Int
    private var buffer = Data()
    /// True while discarding the rest of an oversized line.
    private var skipping = false

    public init(limit: Int) { self.limit = limit }

    /// The complete lines in `bytes` (after what came before); a partial last line is kept for the next call.
    public mutating func feed(_ bytes: Data) -> [Piece] {
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
    public mutating func finish() -> [Piece] {
        defer { buffer.removeAll() }
        return skipping || buffer.isEmpty ? [] : [.line(buffer)]
    }
}

/// Reads a file descriptor (stdin) on a thread of its own, so blocking reads never hold the cooperative pool, and
/// hands its framed lines over as an async sequence that ends at end of input.
enum DescriptorLines {
    static func lines(_ descriptor: Int32, limit: Int) -> AsyncStream<LineFramer.Piece> {
        let (stream, continuation) = AsyncStream.makeStream(of: LineFramer.Piece.self)
        let thread = Thread {
            var framer = LineFramer(limit: limit)
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { FileDescriptor(descriptor).read(into: $0) }
                guard count > 0 else { break }
                for piece in framer.feed(Data(chunk[0..<count])) { continuation.yield(piece) }
            }
            for piece in framer.finish() { continuation.yield(piece) }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}

/// Writes whole lines to a file descriptor (stdout), one writer at a time, so concurrent replies never interleave.
final class LineWriter: Sendable {
    private let descriptor: Int32
    private let lock = NSLock()

    init(descriptor: Int32) { self.descriptor = descriptor }

    func write(_ line: Data) {
        let bytes = line + Data([0x0A])
        lock.lock()
        defer { lock.unlock() }
        _ = bytes.withUnsafeBytes { FileDescriptor(descriptor).write(all: $0) }
    }
}
