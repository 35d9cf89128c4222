import Foundation

/// Who may talk to `trove web`. Any page open in the user's browser can send requests to a local port, so every
/// request must name this server as its Host (against DNS rebinding: a foreign name that resolves to 127.0.0.1),
/// may come only from this server's own origin, and every API call must carry the token minted at this start.
struct Access: Sendable {
    /// The token the printed URL carries; API calls send it as `Authorization: Bearer TOKEN`.
    let token: String
    /// `host:port` spellings of this server (lowercased).
    let hosts: Set<String>

    /// The rules for a server on `address:port` (an IPv6 address named in brackets, `[::1]:port`, as browsers send
    /// it); a loopback address also answers to localhost.
    init(token: String, address: String, port: UInt16) {
        self.token = token
        var names = [Listener.hostName(address)]
        if Listener.isLoopback(address) { names.append("localhost") }
        hosts = Set(names.map { "\($0):\(port)".lowercased() })
    }

    /// A fresh token: 32 bytes from the system's random source (getrandom), as 64 hex digits.
    static func mintToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Why `request` is refused, or nil when it may go on. `api` says whether it reaches data (token needed).
    func refusal(_ request: HTTPRequest, api: Bool) -> HTTPResponse? {
        let host = request.headers["host"]?.lowercased() ?? ""
        guard hosts.contains(host) else {
            return WebResponses.error(
                403, "host '\(host)' is not this server — open the URL that trove web printed (\(hosts.sorted()[0]))")
        }
        if let origin = request.headers["origin"], !hosts.contains(where: { "http://" + $0 == origin.lowercased() }) {
            return WebResponses.error(
                403, "requests from origin '\(origin)' are refused — only this server's page may call it")
        }
        guard api else { return nil }
        // A browser says where a request comes from even when it sends no Origin (a GET).
        if let site = request.headers["sec-fetch-site"], site != "same-origin", site != "none" {
            return WebResponses.error(403, "\(site) requests are refused — only this server's page may call it")
        }
        let presented = request.headers["authorization"].flatMap { value -> String? in
            value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : nil
        }
        guard let presented, Self.same(presented, token) else {
            var refusal = WebResponses.error(
                401, "this API needs the token of the URL trove web printed — send it as Authorization: Bearer TOKEN")
            refusal.headers.append(("WWW-Authenticate", "Bearer"))
            return refusal
        }
        return nil
    }

    /// Compares in time that depends on the length only, so the token cannot be guessed byte by byte.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
