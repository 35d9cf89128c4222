/// A `postgresql://` location taken apart: what libpq gets, and what is Trove's own (`schema`, `hnsw`).
///
/// libpq refuses query parameters it does not know, so Trove's are removed before connecting; everything else
/// (user, password, host, port, database, `sslmode`, `service`, `passfile` …) goes to libpq unchanged, which applies
/// its own rules for credentials (the URL, `PGPASSWORD`, `~/.pgpass`, a service file) and TLS.
package struct PostgresURL: Sendable, Equatable {
    /// The URL as libpq gets it: without Trove's parameters.
    package var connection: String
    /// The schema holding this index (`?schema=`, default `trove`): several indexes share a database this way.
    package var schema: String
    /// When the HNSW index is used (`?hnsw=auto|on|off`, default auto).
    package var hnsw: HNSWPolicy

    /// When vector search goes through pgvector's HNSW index instead of an exact scan.
    package enum HNSWPolicy: String, Sendable, CaseIterable {
        /// Built and used once the index holds `PostgresStore.hnswThreshold` vectors.
        case auto
        /// Built whatever the size (forced, e.g. to measure it).
        case on
        /// Never built; every search is exact.
        case off
    }

    /// The schema used when the URL names none.
    package static let defaultSchema = "trove"

    /// Parses `url`; throws a usage-grade `StoreError` for a schema name or `hnsw` value it cannot take.
    package init(_ url: String) throws {
        var schema = Self.defaultSchema
        var hnsw = HNSWPolicy.auto
        guard let question = url.firstIndex(of: "?") else {
            self.connection = url
            self.schema = schema
            self.hnsw = hnsw
            return
        }
        var kept: [Substring] = []
        for pair in url[url.index(after: question)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1]) : ""
            switch parts[0] {
            case "schema":
                guard Self.isPlainName(value) else {
                    throw StoreError(
                        code: .cannotOpen,
                        message: "schema \"\(value)\" in \(Self.redacted(url)) is not a plain name: use lowercase "
                            + "letters, digits and _ (at most 63, not starting with a digit)")
                }
                schema = value
            case "hnsw":
                guard let policy = HNSWPolicy(rawValue: value) else {
                    throw StoreError(
                        code: .cannotOpen, message: "hnsw=\(value) in \(Self.redacted(url)): expected auto, on or off")
                }
                hnsw = policy
            default:
                kept.append(pair)
            }
        }
        let base = String(url[..<question])
        self.connection = kept.isEmpty ? base : base + "?" + kept.joined(separator: "&")
        self.schema = schema
        self.hnsw = hnsw
    }

    /// A schema name that needs no quoting anywhere: `[a-z_][a-z0-9_]*`, at most 63 bytes (PostgreSQL's limit).
    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 63 else { return false }
        guard first == "_" || ("a"..."z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }

    /// `url` without its password: `postgresql://user:secret@host/db` becomes `postgresql://user@host/db`, and a
    /// `password=` parameter is dropped. What `status`, messages and logs show.
    package static func redacted(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                authority = String(userInfo[..<colon]) + String(authority[at...])
            }
        }
        var tail = String(rest[authorityEnd...])
        if let question = tail.firstIndex(of: "?") {
            let kept = tail[tail.index(after: question)...].split(separator: "&").filter {
                !$0.hasPrefix("password=")
            }
            tail = String(tail[..<question]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        }
        return String(url[..<schemeEnd.upperBound]) + authority + tail
    }
}
