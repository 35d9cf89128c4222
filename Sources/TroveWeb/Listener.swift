import Foundation
import Glibc
import TroveSystem

/// The listening socket `trove web` hands to libmicrohttpd: bound here, so a busy port or a bad address is a
/// sentence a user can act on, and the port the kernel chose for 0 can be read back.
package struct Listener {
    let descriptor: Int32
    let port: UInt16

    /// A TCP socket listening on `address` (IPv4 like 127.0.0.1, or IPv6 like ::1) and `port` (0: any free one).
    init(address: String, port: UInt16) throws {
        let ipv6 = address.contains(":")
        var storage = sockaddr_storage()
        let length: socklen_t
        let parsed = withUnsafeMutableBytes(of: &storage) { raw -> Bool in
            if ipv6 {
                let socketAddress = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                socketAddress.pointee.sin6_family = sa_family_t(AF_INET6)
                socketAddress.pointee.sin6_port = port.bigEndian
                return inet_pton(AF_INET6, address, &socketAddress.pointee.sin6_addr) == 1
            }
            let socketAddress = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            socketAddress.pointee.sin_family = sa_family_t(AF_INET)
            socketAddress.pointee.sin_port = port.bigEndian
            return inet_pton(AF_INET, address, &socketAddress.pointee.sin_addr) == 1
        }
        length = socklen_t(ipv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        guard parsed else {
            throw WebError.usage("--host \(address) is not an IP address — give one like 127.0.0.1 or ::1")
        }
        let family = ipv6 ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw WebError.failure("cannot make a socket: \(String(cString: strerror(errno)))")
        }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        // An IPv6 address means that address only, not IPv4 as well (:: would otherwise take 0.0.0.0 too).
        if ipv6 { setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, socklen_t(MemoryLayout<Int32>.size)) }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 128) == 0 else {
            let reason = errno
            close(descriptor)
            if reason == EADDRINUSE {
                throw WebError.unavailable(
                    "port \(port) on \(address) is in use — choose another with --port, or --port 0 for any free one")
            }
            throw WebError.failure("cannot listen on \(address) port \(port): \(String(cString: strerror(reason)))")
        }
        var chosen = sockaddr_storage()
        var chosenLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &chosen) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &chosenLength) }
        }
        self.descriptor = descriptor
        // sin_port and sin6_port lie at the same offset, right after the family.
        self.port = withUnsafeBytes(of: &chosen) { raw in
            UInt16(bigEndian: raw.load(fromByteOffset: MemoryLayout<sa_family_t>.size, as: UInt16.self))
        }
    }

    /// `address` as a URL or Host header names it: an IPv6 address in brackets (`[::1]`).
    static func hostName(_ address: String) -> String { address.contains(":") ? "[\(address)]" : address }

    /// Whether `address` reaches this machine only (127.0.0.0/8, ::1): any other needs `--allow-remote`.
    package static func isLoopback(_ address: String) -> Bool { address.hasPrefix("127.") || address == "::1" }
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
