import Foundation
@preconcurrency import Glibc
import TroveSystem

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
