import Foundation

/// Resolves the server's base URL the way the `ollama` CLI does (`envconfig.Host()` in ollama/ollama).
public enum OllamaHost {
    /// The built-in default, `http://127.0.0.1:11434`.
    public static let defaultURL = URL(string: "http://127.0.0.1:11434")!

    /// A `--ollama` or `OLLAMA_HOST` value that names no usable server.
    public struct InvalidHost: Error, CustomStringConvertible, Sendable, Equatable {
        /// Where the value came from: `--ollama` or `OLLAMA_HOST`.
        public var source: String
        /// The value as given.
        public var value: String
        /// Why it was refused.
        public var reason: String

        /// Builds the error.
        public init(source: String, value: String, reason: String) {
            self.source = source
            self.value = value
            self.reason = reason
        }

        /// E.g. `OLLAMA_HOST 'x:abc' is not a valid host: port 'abc' is not a number from 0 to 65535`.
        public var description: String { "\(source) '\(value)' is not a valid host: \(reason)" }
    }

    /// `flag` (e.g. `--ollama`), else `OLLAMA_HOST` (`host`, `host:port`, `scheme://host:port/path`), else the default.
    ///
    /// Follows Ollama's rules: quotes and spaces are trimmed; no scheme means `http` on port 11434; `http://` and
    /// `https://` without a port mean 80 and 443; a path after the host is kept. Unlike Ollama, which warns and
    /// falls back, a bad port or scheme throws `InvalidHost`; and a listen-on-all address (`0.0.0.0`, `::`, or no
    /// host at all, as in `:11434`) is reached through loopback, since it names no host to connect to.
    public static func resolve(flag: String?, environment: [String: String]) throws -> URL {
        if let flag, !clean(flag).isEmpty {
            return try parse(flag, source: "--ollama")
        }
        if let value = environment["OLLAMA_HOST"], !clean(value).isEmpty {
            return try parse(value, source: "OLLAMA_HOST")
        }
        return defaultURL
    }

    /// Trims spaces, then quotes, then spaces, as Ollama's `envconfig.Var` does.
    static func clean(_ value: String) -> String {
        value.trimmingCharacters(in: .whitespacesAndNewlines)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Parses one host value the way `resolve` does; `source` names where it came from in the error.
    public static func parse(_ raw: String, source: String) throws -> URL {
        let value = clean(raw)
        func invalid(_ reason: String) -> InvalidHost { InvalidHost(source: source, value: raw, reason: reason) }

        var scheme = "http"
        var defaultPort = "11434"
        var rest = Substring(value)
        if let range = value.range(of: "://") {
            scheme = value[..<range.lowerBound].lowercased()
            rest = value[range.upperBound...]
            switch scheme {
            case "http": defaultPort = "80"
            case "https": defaultPort = "443"
            default: throw invalid("scheme '\(scheme)' is not http or https")
            }
        } else if value == "ollama.com" {
            // Ollama's own special case: the bare cloud host means its https endpoint.
            scheme = "https"
            rest = "ollama.com:443"
        }

        var hostport = rest
        var path = ""
        if let slash = rest.firstIndex(of: "/") {
            hostport = rest[..<slash]
            path = String(rest[rest.index(after: slash)...])
        }
        while path.hasSuffix("/") { path.removeLast() }

        var host: String
        var port: String
        if let split = splitHostPort(String(hostport)) {
            (host, port) = split
            if port.isEmpty { port = defaultPort }
        } else {
            host = "127.0.0.1"
            port = defaultPort
            let bare = hostport.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if !bare.isEmpty { host = bare }
        }

        guard let portNumber = Int(port), (0...65535).contains(portNumber) else {
            throw invalid("port '\(port)' is not a number from 0 to 65535")
        }
        if host.isEmpty || host == "0.0.0.0" || host == "::" || host == "[::]" { host = "127.0.0.1" }
        if host.contains(where: { $0 == " " || $0 == "@" || $0 == "?" || $0 == "#" }) {
            throw invalid("host '\(host)' contains characters a host name cannot have")
        }
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }

        var text = "\(scheme)://\(host):\(portNumber)"
        if !path.isEmpty { text += "/" + path }
        guard let url = URL(string: text), url.host != nil else {
            throw invalid("'\(text)' is not a URL")
        }
        return url
    }

    /// Go's `net.SplitHostPort` for the shapes Ollama meets: `host:port`, `[v6]:port`, `:port`; nil when no port.
    static func splitHostPort(_ hostport: String) -> (host: String, port: String)? {
        if hostport.hasPrefix("[") {
            guard let close = hostport.firstIndex(of: "]") else { return nil }
            let after = hostport[hostport.index(after: close)...]
            guard after.hasPrefix(":") else { return nil }
            let host = String(hostport[hostport.index(after: hostport.startIndex)..<close])
            return (host, String(after.dropFirst()))
        }
        let colons = hostport.filter { $0 == ":" }.count
        guard colons == 1, let colon = hostport.lastIndex(of: ":") else { return nil }
        return (String(hostport[..<colon]), String(hostport[hostport.index(after: colon)...]))
    }
}
