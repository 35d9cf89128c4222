import Foundation

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

    /// The bytes a test file starts with to set the fault off.
    package static let marker = Array("TROVE-TEST-FAULT".utf8)

    /// Acts the fault out (never returns, except `flood`, which returns only when the host stopped reading).
    package func act(replyingOn socket: Int32) {
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
        }
    }
}
