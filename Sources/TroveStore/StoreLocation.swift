/// Opens the store a location names: a `postgresql://` or `postgres://` URL selects PostgreSQL, anything else is
/// the path of a SQLite file.
public enum StoreLocation {
    /// Whether `location` is a PostgreSQL URL.
    public static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// The store at `location`, created when missing and `createIfMissing` (a SQLite file; a PostgreSQL schema).
    public static func open(_ location: String, createIfMissing: Bool) throws -> any IndexBackend {
        if isPostgres(location) { return try PostgresStore(url: location, createIfMissing: createIfMissing) }
        return try SQLiteStore(path: location, createIfMissing: createIfMissing)
    }

    /// `location` as it may be shown: a URL without its password, a path unchanged.
    public static func display(_ location: String) -> String {
        isPostgres(location) ? PostgresURL.redacted(location) : location
    }

    /// Whether an index may exist at `location` without creating anything: a file that exists; always for a URL,
    /// whose server only an open can ask (and whose failure to connect is worth reporting).
    public static func exists(_ location: String) -> Bool {
        isPostgres(location) || FileSystem.exists(location)
    }
}
