#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few POSIX file operations the store needs, without Foundation.
enum FileSystem {
    /// Whether anything exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Size in bytes of the file at `path`, 0 when absent.
    static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Permission bits of `path` (e.g. 0o600), nil when absent.
    static func permissions(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// Creates the missing folders of `directory`, each private to the user (0700); existing ones are left as is.
    static func createDirectories(_ directory: String, path: String) throws {
        guard !directory.isEmpty, !exists(directory) else { return }
        let parent = parentDirectory(of: directory)
        if parent != directory { try createDirectories(parent, path: path) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StoreError.cannotOpen(
                path: path, reason: "cannot create folder \(directory): \(errorString())")
        }
    }

    /// Creates an empty file at `path` with mode 0600 unless it exists, so SQLite never creates it with the
    /// umask's (often world-readable) mode. SQLite gives the -wal and -shm files the database file's mode.
    static func createPrivateFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw StoreError.cannotOpen(path: path, reason: errorString())
        }
    }

    /// The folder holding `path` (`.` for a bare name, `/` for a top-level entry).
    static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// `strerror(errno)` in lowercase style, e.g. `permission denied`.
    static func errorString() -> String {
        let text = String(cString: strerror(errno))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
