/// Where an index lives: the path of a SQLite file, or a `postgresql://` (or `postgres://`) URL naming a schema.
/// Parsed once, from the text a user gave (`--index`, `TROVE_INDEX`, the config file), and carried typed from there
/// to the store it opens.
public enum IndexLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite file.
    case file(String)
    /// A PostgreSQL + pgvector schema, as its URL (which may hold a password).
    case postgres(String)

    /// The location `text` names: a PostgreSQL URL by its scheme, anything else a path.
    public init(_ text: String) {
        self = text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") ? .postgres(text) : .file(text)
    }

    /// The text as given: the path, or the whole URL.
    public var text: String {
        switch self {
        case .file(let path): path
        case .postgres(let url): url
        }
    }

    /// As it may be shown (logs, errors, `status`): the path, or the URL without its password.
    public var description: String {
        switch self {
        case .file(let path): path
        case .postgres(let url): PostgresURL.redacted(url)
        }
    }

    /// The store here, created when missing and `createIfMissing` (a SQLite file; a PostgreSQL schema).
    package func open(createIfMissing: Bool) throws -> any IndexBackend {
        switch self {
        case .file(let path): try SQLiteStore(path: path, createIfMissing: createIfMissing)
        case .postgres(let url): try PostgresStore(url: url, createIfMissing: createIfMissing)
        }
    }

    /// Whether an index may be here without creating anything: a file that exists; always for a URL, whose server
    /// only an open can ask (and whose failure to connect is worth reporting).
    package var mayExist: Bool {
        switch self {
        case .file(let path): FileSystem.exists(path)
        case .postgres: true
        }
    }
}
