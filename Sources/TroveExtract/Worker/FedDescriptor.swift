import Dispatch
import Foundation
@preconcurrency import Glibc
import TroveIngest
import TroveSystem

/// Bytes held in memory (a mail's PDF attachment) handed to a reader that wants a descriptor (pdftotext's standard
/// input): the read end of a socket pair whose other end a thread of its own fills. Not a file: the worker may write
/// none (RLIMIT_FSIZE 0 refuses memfd writes too). A socket, not a pipe: `MSG_NOSIGNAL` keeps a reader that stops
/// early from killing the worker with SIGPIPE.
enum FedDescriptor {
    /// `body`'s result, given a descriptor that reads `bytes` and then end of file.
    static func reading<T>(_ bytes: [UInt8], _ body: (Int32) throws(ExtractionFailure) -> T)
        throws(ExtractionFailure) -> T
    {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw ExtractionFailure(.damaged, "cannot hand it over: \(String(cString: strerror(errno)).lowercased())")
        }
        let (reader, writer) = (ends[0], ends[1])
        let written = DispatchSemaphore(value: 0)
        Thread {
            _ = bytes.withUnsafeBytes { FileDescriptor(writer).send(all: $0, flags: Int32(MSG_NOSIGNAL)) }
            close(writer)  // the writer's only close: the reader sees the end of the file
            written.signal()
        }.start()
        defer {
            // Closed before the wait: a reader that stopped early leaves the writer's send failing, not blocked.
            close(reader)
            written.wait()
        }
        return try body(reader)
    }
}
