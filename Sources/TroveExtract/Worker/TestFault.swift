import Foundation
import TroveIngest

/// A fault the worker acts out on purpose, so that the tests can prove each guard (a crash, a hang, a memory
/// blow-up, a flood of output each end only the worker). Reached only when the worker was started with
/// `--test-fault KIND` (which only the tests pass) AND the file starts with `marker`: no user's file can trigger
/// one in a worker that trove starts.
package enum TestFault: String, Sendable, CaseIterable {
    /// A trap (Swift's `fatalError`).
    case crash
    /// Sleeps forever.
    case hang
    /// Allocates and touches memory until an allocation fails.
    case allocate
    /// Writes an endless reply.
    case flood
    /// Tries to open the path written after the marker's line and answers `visible` or `hidden`: what the
    /// confinement hides from a parser.
    case peek

    /// The bytes a test file starts with to set the fault off.
    package static let marker = Array("TROVE-TEST-FAULT".utf8)

    /// Acts the fault out on the file `descriptor` (never returns, except `flood`, which returns when the host
    /// stopped reading, and `peek`, which returns its answer).
    package func act(on descriptor: Int32, replyingOn socket: Int32) -> ExtractedDocument? {
        switch self {
        case .crash:
            fatalError("test fault: crash")
        case .hang:
            while true { sleep(3600) }
        case .allocate:
            // Swift's runtime traps with "could not allocate memory" once the address-space limit is reached.
            var blocks: [[UInt8]] = []
            while true { blocks.append([UInt8](repeating: 1, count: 64 << 20)) }
        case .flood:
            let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
            while piece.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0 {}
            return nil
        case .peek:
            var bytes = [UInt8](repeating: 0, count: 4096)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            let text = String(decoding: bytes.prefix(max(got, 0)), as: UTF8.self)
            let path = text.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
            let seen = FileManager.default.isReadableFile(atPath: path)
            return ExtractedDocument(lines: [seen ? "visible" : "hidden"], extractor: "test-fault")
        }
    }
}
