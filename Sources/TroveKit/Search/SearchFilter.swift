@preconcurrency import Glibc
import TroveIngest
import TroveStore
import TroveSystem

/// Which documents a search may return, decided before any ranking so top-k is taken among them only.
/// Kinds of condition combine with AND; the values of one kind (several globs, extensions, roots) with OR.
public struct SearchFilter: Sendable, Equatable, Codable {
    /// Globs over the document path: without `/` a glob matches the file name or any folder name in the path
    /// (`*.md`, `engineering`); with `/` it matches from the start of the path relative to its indexed folder,
    /// and a match of leading folders includes everything inside (`notes/retros`, `howto/*.rst`, `**/2024-*`);
    /// a glob starting with `/` is matched against the absolute path the same way.
    public var pathGlobs: [String] = []
    /// File extensions without the dot, compared case-insensitively (`md`, `txt`).
    public var extensions: [String] = []
    /// Only documents modified at or after this time (nanoseconds since 1970).
    public var modifiedSince: Int64?
    /// Only documents modified before this time (nanoseconds since 1970).
    public var modifiedBefore: Int64?
    /// Indexed folders, each given by its absolute path or its last path component.
    public var roots: [String] = []

    /// A filter from its parts; the empty filter allows everything.
    public init(
        pathGlobs: [String] = [], extensions: [String] = [], modifiedSince: Int64? = nil,
        modifiedBefore: Int64? = nil, roots: [String] = []
    ) {
        self.pathGlobs = pathGlobs
        self.extensions = extensions
        self.modifiedSince = modifiedSince
        self.modifiedBefore = modifiedBefore
        self.roots = roots
    }

    /// True when the filter allows every document.
    public var isEmpty: Bool {
        pathGlobs.isEmpty && extensions.isEmpty && modifiedSince == nil && modifiedBefore == nil && roots.isEmpty
    }

    /// Whether `document` passes every condition.
    package func matches(_ document: SearchableDocument) -> Bool {
        guard conditions(rootPaths: nil).matches(document) else { return false }
        if !roots.isEmpty, !roots.contains(where: { Self.root(document.rootPath, isNamed: $0) }) { return false }
        return pathMatches(document)
    }

    /// The conditions a store can evaluate itself: everything but the path globs, with the roots already resolved
    /// to the absolute paths of the indexed folders they name (nil: any root).
    package func conditions(rootPaths: [String]?) -> DocumentConditions {
        DocumentConditions(
            rootPaths: rootPaths, extensions: extensions, modifiedSince: modifiedSince, modifiedBefore: modifiedBefore)
    }

    /// Whether the document's path matches one of the globs (true when there are none).
    package func pathMatches(_ document: SearchableDocument) -> Bool {
        pathGlobs.isEmpty || pathGlobs.contains(where: { Self.glob($0, matches: document) })
    }

    /// Whether the indexed folder at `rootPath` is the one called `name` (its absolute path or last component).
    public static func root(_ rootPath: String, isNamed name: String) -> Bool {
        let trimmedRoot = trimSlashes(rootPath)
        let trimmedName = trimSlashes(name)
        if name.hasPrefix("/") { return trimmedRoot == trimmedName }
        return trimmedRoot.split(separator: "/").last.map(String.init) == trimmedName
    }

    private static func trimSlashes(_ path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    private static func glob(_ pattern: String, matches document: SearchableDocument) -> Bool {
        let relative = Glob.segments(of: document.path)
        if !pattern.contains("/") {
            // Like gitignore: a bare name matches at any level, the file or any folder above it.
            let glob = Glob(pattern)
            return relative.contains { glob.matches([$0][...]) }
        }
        let absolute = pattern.hasPrefix("/")
        let path = absolute ? Glob.segments(of: document.rootPath) + relative : relative
        let glob = Glob(pattern)
        // A match of the whole path or of leading folders: `notes/retros` selects what is inside it.
        return (1...max(1, path.count)).contains { glob.matches(path[0..<min($0, path.count)]) }
    }
}

/// A filter that cannot be applied as given.
public struct SearchFilterError: TroveError, Equatable {
    /// A lowercase sentence saying what to do.
    public var message: String

    /// An error with its message.
    public init(_ message: String) { self.message = message }

    /// Who is at fault: the request (exit 64).
    public var fault: Fault { .usage }
}

extension SearchFilter {
    /// Parses a `--since`/`--before` value as local time: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS]` (or with a space),
    /// or an age `N` followed by `h`, `d` or `w` (hours, days, weeks before `now`). Nanoseconds since 1970.
    public static func parseTime(_ text: String, now: Int64 = Int64(time(nil))) -> Int64? {
        let trimmed = text.trimmingWhitespace()
        if let unit = trimmed.last, "hdw".contains(unit), let count = Int64(trimmed.dropLast()), count >= 0 {
            let seconds: Int64 = unit == "h" ? 3600 : unit == "d" ? 86_400 : 604_800
            return nanoseconds(now - min(count, 1 << 32) * seconds)
        }
        let parts = trimmed.split(whereSeparator: { $0 == "T" || $0 == " " })
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int32($0) }
        guard date.count == 3, let year = date[0], let month = date[1], let day = date[2], parts[0].count == 10,
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var clock: [Int32] = [0, 0, 0]
        if parts.count == 2 {
            let fields = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int32($0) }
            guard fields.count == 2 || fields.count == 3, !fields.contains(nil) else { return nil }
            for (index, value) in fields.enumerated() { clock[index] = value! }
            guard (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else {
                return nil
            }
        }
        var fields = tm()
        fields.tm_year = year - 1900
        fields.tm_mon = month - 1
        fields.tm_mday = day
        fields.tm_hour = clock[0]
        fields.tm_min = clock[1]
        fields.tm_sec = clock[2]
        fields.tm_isdst = -1
        let seconds = mktime(&fields)
        // mktime normalizes 2024-02-31 to March 2nd; refuse dates that do not exist instead.
        guard seconds != -1 || (year == 1969 && month == 12 && day == 31), fields.tm_mday == day,
            fields.tm_mon == month - 1
        else { return nil }
        return nanoseconds(Int64(seconds))
    }

    /// Seconds as nanoseconds, clamped: the year 2999 is past what Int64 nanoseconds reach (2262).
    private static func nanoseconds(_ seconds: Int64) -> Int64 {
        let (value, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : value
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}
