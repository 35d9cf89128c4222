import Foundation

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// A loopback port where nothing listens, held for as long as this object lives: a socket is bound to it but never
/// listens, so connections are refused (like an Ollama that is not running) and no other test's server can be given
/// the same port meanwhile — which a stopped server's port does not guarantee when tests run in parallel.
public final class ClosedPort: Sendable {
    public let port: UInt16
    private let descriptor: Int32

    /// Reserves `port`, or any free port when 0; throws when the port is taken.
    public init(port requested: UInt16 = 0) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = requested.bigEndian
        // A port a stopped server just freed still has its connections in TIME_WAIT; without SO_REUSEADDR the
        // bind fails for a minute, and a test holding that port would check nothing.
        var yes: Int32 = 1
        if requested != 0 {
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
}
