import Foundation
import Glibc
import TroveSystem

// Fuzz target: `trove web`'s request handling. The input is the bytes a client sends: they go over a real socket to
// an in-process HTTPServer (libmicrohttpd, with the body cap and this server's own code around it), whose handler
// applies the Access rules and turns the query into tool arguments, as `trove web` does. Oracles: every input is
// answered with an HTTP status line or a closed connection, never a crash or a hang; a request the Access rules admit
// to the API carried the token and named this server as its Host; the query's arguments always make a JSON object
// that survives a round trip.
let token = String(repeating: "5a", count: 32)
nonisolated(unsafe) var access: Access!
let server: HTTPServer = {
    let server = try! HTTPServer(address: "127.0.0.1", port: 0) { request in
        if let refusal = access.refusal(request, api: true) { return refusal }
        precondition(request.headers["authorization"] == "Bearer " + token, "admitted without the token")
        precondition(access.hosts.contains(request.headers["host"]?.lowercased() ?? ""), "admitted a foreign host")
        let arguments = QueryArguments.json(request.query, lists: ["path", "ext", "root"])
        precondition(arguments.objectValue != nil && JSON.parse(arguments.encoded()) == arguments, "arguments")
        return HTTPResponse(status: 200, body: .bytes(arguments.encoded()))
    }
    access = Access(token: token, address: "127.0.0.1", port: server.port)
    return server
}()

/// A socket connected to the server, or the errno of a failed attempt.
func connectToServer() -> Result<Int32, POSIXError> {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = server.port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    if connected == 0 { return .success(descriptor) }
    let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    close(descriptor)
    return .failure(error)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    // A connection can fail for a moment for the host's own reasons (a CI run once met one after thousands of
    // connections, with no input to blame): a server that stopped listening still fails every try for a second.
    var attempt = connectToServer()
    for _ in 0..<100 {
        guard case .failure = attempt else { break }
        usleep(10_000)
        attempt = connectToServer()
    }
    guard case .success(let descriptor) = attempt else {
        preconditionFailure("the server stopped listening: \(attempt)")
    }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = send(descriptor, data, size, Int32(MSG_NOSIGNAL))
    shutdown(descriptor, Int32(SHUT_WR))
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = recv(descriptor, &buffer, buffer.count, 0)
        if count <= 0 { break }
        reply += buffer[..<count]
    }
    precondition(reply.isEmpty || reply.starts(with: Array("HTTP/1.".utf8)), "a reply that is not HTTP")
    return 0
}
