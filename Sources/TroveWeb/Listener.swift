import Foundation
import Glibc
import TroveSystem

/// The listening socket `trove web` hands to libmicrohttpd: bound here, so a busy port or a bad address is a
/// sentence a user can act on, and the port the kernel chose for 0 can be read back.
struct Listener {
    let descriptor: Int32
    let port: UInt16

    /// A TCP socket listening on IPv4 `address` (dotted quad) and `port` (0: any free one).
    init(address: String, port: UInt16) throws {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        guard inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 else {
            throw WebError.usage("--host \(address) is not an IPv4 address — give one like 127.0.0.1")
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw WebError.failure("cannot make a socket: \(String(cString: strerror(errno)))")
        }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 128) == 0 else {
            let reason = errno
            close(descriptor)
            if reason == EADDRINUSE {
                throw WebError.unavailable(
                    "port \(port) on \(address) is in use — choose another with --port, or --port 0 for any free one")
            }
            throw WebError.failure("cannot listen on \(address):\(port): \(String(cString: strerror(reason)))")
        }
        var chosen = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &chosen) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: chosen.sin_port)
    }
}

/// Why `trove web` cannot start or a request cannot be served.
package struct WebError: TroveError {
    package var message: String
    package var fault: Fault
    package var hint: String?

    static func usage(_ message: String) -> WebError { WebError(message: message, fault: .usage) }
    static func unavailable(_ message: String) -> WebError { WebError(message: message, fault: .unavailable) }
    static func failure(_ message: String) -> WebError { WebError(message: message, fault: .failure) }
}
