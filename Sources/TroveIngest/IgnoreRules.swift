/// A glob over `/`-separated paths: `*` `?` `[abc]` `[a-z]` `[!a]` within one segment, `\x` escapes, and `**` as a
/// whole segment for any number of folders (a trailing `/**` needs at least one: `docs/**` is what is inside docs).
package struct Glob: Sendable, Equatable {
    /// Pattern segments, split on `/`.
    let segments: [[UInt8]]

    /// Parses `pattern` (no leading `/`; the caller decides anchoring).
    package init(_ pattern: String) {
        segments = pattern.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
    }

    /// Whether the whole of `path` (segments) matches.
    package func matches(_ path: ArraySlice<[UInt8]>) -> Bool {
        Self.match(segments[...], path)
    }

    /// Whether the whole of `path` matches.
    package func matches(_ path: String) -> Bool {
        matches(Self.segments(of: path)[...])
    }

    /// `path` split on `/`, as bytes.
    package static func segments(of path: String) -> [[UInt8]] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
    }

    private static let doubleStar: [UInt8] = Array("**".utf8)

    private static func match(_ pattern: ArraySlice<[UInt8]>, _ path: ArraySlice<[UInt8]>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == doubleStar {
            let rest = pattern.dropFirst()
            // A trailing `**` matches everything inside, not the folder itself.
            if rest.isEmpty { return !path.isEmpty }
            var candidate = path
            while true {
                if match(rest, candidate) { return true }
                if candidate.isEmpty { return false }
                candidate = candidate.dropFirst()
            }
        }
        guard let segment = path.first, matchSegment(first, segment) else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
    }

    /// fnmatch for one segment, iterative with single-star backtracking.
    static func matchSegment(_ p: [UInt8], _ n: [UInt8]) -> Bool {
        var pi = 0
        var ni = 0
        var starP = -1
        var starN = 0
        while ni < n.count {
            if pi < p.count {
                switch p[pi] {
                case UInt8(ascii: "*"):
                    // `**` inside a segment behaves as `*`.
                    while pi < p.count && p[pi] == UInt8(ascii: "*") { pi += 1 }
                    starP = pi
                    starN = ni
                    continue
                case UInt8(ascii: "?"):
                    pi += 1
                    ni += 1
                    continue
                case UInt8(ascii: "["):
                    if let (matched, next) = matchClass(p, pi, n[ni]) {
                        if matched {
                            pi = next
                            ni += 1
                            continue
                        }
                    } else if n[ni] == UInt8(ascii: "[") {
                        // An unclosed `[` is a literal.
                        pi += 1
                        ni += 1
                        continue
                    }
                case UInt8(ascii: "\\") where pi + 1 < p.count:
                    if p[pi + 1] == n[ni] {
                        pi += 2
                        ni += 1
                        continue
                    }
                default:
                    if p[pi] == n[ni] {
                        pi += 1
                        ni += 1
                        continue
                    }
                }
            }
            guard starP >= 0 else { return false }
            starN += 1
            ni = starN
            pi = starP
        }
        while pi < p.count && p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }

    /// Matches `[...]` at `p[start]` against `c`: (matched, index after `]`), or nil when the class is unclosed.
    private static func matchClass(_ p: [UInt8], _ start: Int, _ c: UInt8) -> (Bool, Int)? {
        var i = start + 1
        var negate = false
        if i < p.count && (p[i] == UInt8(ascii: "!") || p[i] == UInt8(ascii: "^")) {
            negate = true
            i += 1
        }
        var matched = false
        var first = true
        while i < p.count {
            if p[i] == UInt8(ascii: "]") && !first { return (matched != negate, i + 1) }
            first = false
            var low = p[i]
            if low == UInt8(ascii: "\\") && i + 1 < p.count {
                i += 1
                low = p[i]
            }
            if i + 2 < p.count && p[i + 1] == UInt8(ascii: "-") && p[i + 2] != UInt8(ascii: "]") {
                var high = p[i + 2]
                i += 3
                if high == UInt8(ascii: "\\") && i < p.count {
                    high = p[i]
                    i += 1
                }
                if low <= c && c <= high { matched = true }
            } else {
                if low == c { matched = true }
                i += 1
            }
        }
        return nil
    }
}

/// One line of a `.gitignore`/`.troveignore`, or one `--include`/`--exclude` glob.
package struct IgnoreRule: Sendable, Equatable {
    /// The glob, relative to `base`.
    package var glob: Glob
    /// `!pattern`: re-includes what an earlier rule excluded.
    package var negated: Bool
    /// `pattern/`: matches folders only.
    package var directoryOnly: Bool
    /// A `/` at the start or in the middle: matched against the path from `base`; otherwise against the last name
    /// at any depth.
    package var anchored: Bool
    /// Root-relative folder of the ignore file (`""` for the root).
    package var base: String { didSet { baseSegments = Glob.segments(of: base) } }
    private var baseSegments: [[UInt8]]

    /// Parses one line with gitignore syntax; nil for blank lines and comments.
    package init?(line rawLine: Substring, base: String = "") {
        var line = rawLine
        if line.hasSuffix("\r") { line = line.dropLast() }
        // Trailing spaces are trimmed unless escaped with a backslash.
        while line.hasSuffix(" ") && !line.hasSuffix("\\ ") { line = line.dropLast() }
        if line.hasSuffix("\\ ") { line = Substring(String(line.dropLast(2)) + " ") }
        guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
        negated = false
        if line.hasPrefix("!") {
            negated = true
            line = line.dropFirst()
        } else if line.hasPrefix("\\!") || line.hasPrefix("\\#") {
            line = line.dropFirst()
        }
        directoryOnly = false
        while line.hasSuffix("/") {
            directoryOnly = true
            line = line.dropLast()
        }
        guard !line.isEmpty else { return nil }
        anchored = line.contains("/")
        if line.hasPrefix("/") { line = line.drop(while: { $0 == "/" }) }
        // `**/foo` matches `foo` at any depth: the same as an unanchored `foo`, but keep it as a glob.
        glob = Glob(String(line))
        self.base = base
        baseSegments = Glob.segments(of: base)
    }

    /// Whether this rule matches `path` (root-relative); false when `path` is outside `base`.
    package func matches(_ path: String, isDirectory: Bool) -> Bool {
        matches(segments: Glob.segments(of: path), isDirectory: isDirectory)
    }

    /// Whether this rule matches the root-relative path split into segments.
    package func matches(segments path: [[UInt8]], isDirectory: Bool) -> Bool {
        if directoryOnly && !isDirectory { return false }
        guard path.count > baseSegments.count else { return false }
        for (index, segment) in baseSegments.enumerated() where path[index] != segment { return false }
        let relative = path[baseSegments.count...]
        if anchored { return glob.matches(relative) }
        return glob.matches(relative.suffix(1))
    }
}

/// Rules in order of precedence: later rules win, so deeper ignore files come after their parents.
package struct IgnoreRules: Sendable, Equatable {
    package var rules: [IgnoreRule] = []

    package init(rules: [IgnoreRule] = []) { self.rules = rules }

    /// Parses the text of an ignore file found in the root-relative folder `base`.
    package init(text: String, base: String = "") {
        rules = text.split(separator: "\n", omittingEmptySubsequences: false).compactMap {
            IgnoreRule(line: $0, base: base)
        }
    }

    /// Parses globs given on the command line (relative to the root).
    package init(globs: [String]) {
        rules = globs.compactMap { IgnoreRule(line: Substring($0)) }
    }

    /// Appends the rules of a deeper or later file.
    package mutating func append(_ other: IgnoreRules) { rules += other.rules }

    /// The last matching rule decides: true when it excludes, false when it re-includes, nil when none matches.
    package func decision(_ path: String, isDirectory: Bool) -> Bool? {
        if rules.isEmpty { return nil }
        let segments = Glob.segments(of: path)
        for rule in rules.reversed() where rule.matches(segments: segments, isDirectory: isDirectory) {
            return !rule.negated
        }
        return nil
    }

    /// Whether `path` is excluded (the last matching rule is not a negation).
    package func isExcluded(_ path: String, isDirectory: Bool) -> Bool {
        decision(path, isDirectory: isDirectory) ?? false
    }
}
