/// What to walk and what to leave out. CONTRACT STUB: the ingest helper completes the module.
public struct CrawlOptions: Sendable, Equatable {
    /// Globs a file's root-relative path must match (any of them) to be indexed; empty means all.
    public var includes: [String]
    /// Globs that exclude a root-relative path (file or folder).
    public var excludes: [String]
    /// Files larger than this are skipped with a warning.
    public var maxFileSize: Int64

    public init(includes: [String] = [], excludes: [String] = [], maxFileSize: Int64 = 10 << 20) {
        self.includes = includes
        self.excludes = excludes
        self.maxFileSize = maxFileSize
    }
}

/// One indexable file found by the crawler.
public struct CrawledFile: Sendable, Equatable {
    /// The absolute, standardized root folder the file was found under.
    public var root: String
    /// Path relative to `root`, with `/` separators.
    public var relativePath: String
    public var size: Int64
    /// Modification time in nanoseconds since 1970.
    public var modifiedNanoseconds: Int64

    public init(root: String, relativePath: String, size: Int64, modifiedNanoseconds: Int64) {
        self.root = root
        self.relativePath = relativePath
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    public var absolutePath: String { root.hasSuffix("/") ? root + relativePath : root + "/" + relativePath }
}

/// A file the crawler or loader left out, and why: printed as a warning.
public struct SkippedFile: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case binary
        case tooLarge(size: Int64, limit: Int64)
        case unreadable(String)
    }

    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String { fatalError("unimplemented") }
}

/// Failure of the walk itself (root missing, not a folder).
public struct CrawlError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Walks a folder tree honouring ignore rules.
public struct Crawler: Sendable {
    public var options: CrawlOptions

    public init(options: CrawlOptions = CrawlOptions()) { self.options = options }

    /// Calls `onFile` for every indexable file under `root` in sorted path order, and `onSkip` for each file left out
    /// with a reason a user should see (binary by extension, too large, unreadable). Throws `CrawlError` when `root`
    /// is missing or not a folder.
    public func crawl(
        root: String,
        onFile: (CrawledFile) throws -> Void,
        onSkip: (SkippedFile) -> Void
    ) throws { fatalError("unimplemented") }
}
