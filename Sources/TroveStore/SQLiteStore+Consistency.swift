import CSQLite
@preconcurrency import Glibc

/// What keeps several processes on one index consistent: one writer at a time (an advisory lock beside the index),
/// a generation number that changes whenever every vector is replaced (`--reembed`), and `PRAGMA data_version`
/// (`dataVersion()`), which tells a long-lived reader in O(1) that another connection committed anything.
extension SQLiteStore {
    /// The manifest row that counts vector swaps; absent means 0.
    static let generationKey = "generation"

    /// How many times every vector was replaced at once (each finished re-embed adds one). A writer notes it when
    /// it starts and checks it in every transaction, so vectors of the old model never land in a re-embedded index.
    package func vectorGeneration() throws -> Int64 {
        try database.withStatement("SELECT value FROM manifest WHERE key = ?") { statement in
            try statement.bind(Self.generationKey, at: 1)
            guard try statement.step() else { return 0 }
            let text = statement.string(0)
            guard let value = Int64(text), value >= 0 else {
                throw StoreError.damaged(
                    path: path, reason: "its manifest's generation is \"\(text)\", not a number", code: SQLITE_CORRUPT)
            }
            return value
        }
    }

    /// Throws when the index was re-embedded since a writer read `expected` (call inside its transaction).
    package func checkGeneration(_ expected: Int64) throws {
        let now = try vectorGeneration()
        guard now == expected else {
            throw StoreError(
                code: .concurrentChange,
                message: "index \(path) was re-embedded by another run while this one was writing "
                    + "(generation \(expected) became \(now)); nothing of this batch was saved — run the command again")
        }
    }

    /// Sets the generation (inside the transaction that swaps the vectors).
    func setVectorGeneration(_ value: Int64) throws {
        try database.withStatement("INSERT OR REPLACE INTO manifest (key, value) VALUES (?, ?)") { statement in
            try statement.bind(Self.generationKey, at: 1)
            try statement.bind(String(value), at: 2)
            try statement.run()
        }
    }

    /// Changes whenever the vectors change: the chunk count and highest id (ids are never reused) and the vector
    /// generation (a re-embed replaces every vector but keeps both). A long-lived reader checks `dataVersion()`
    /// (one pragma) before each search and reads this only when that moved.
    package func contentVersion() throws -> [Int64] {
        try database.transaction(deferred: true) {
            [try database.scalarInt("SELECT count(*) FROM chunks") ?? 0,
             try database.scalarInt("SELECT coalesce(max(id), 0) FROM chunks") ?? 0, try vectorGeneration()]
        }
    }

    /// Where the writer lock lives: a small file beside the index holding the pid of the process that has it.
    package var writerLockPath: String { path + ".lock" }

    /// Takes the index's advisory writer lock (`flock` on `INDEX.lock`), or throws naming the process holding it.
    /// Held until the returned lock is released or deallocated, or the process ends (the kernel drops it then,
    /// so a killed writer never leaves the index locked). One lock for the whole file whatever `roots` says:
    /// SQLite has one writer at a time anyway.
    package func lockForWriting(roots: [String]) throws -> WriterLock {
        try WriterLock(path: writerLockPath, indexPath: path)
    }
}

/// The advisory lock one writing process holds on an index; released on `release()`, deinit or process exit.
package final class WriterLock: @unchecked Sendable {
    // @unchecked: the release runs once, by the owner (release() or deinit), never from two threads.
    private var releasing: (() -> Void)?

    /// A lock that `release` gives up by running `action` once.
    init(releasing action: @escaping () -> Void) { releasing = action }

    /// Takes the `flock` on the file `path` beside the SQLite index `indexPath`.
    convenience init(path: String, indexPath: String) throws {
        // O_NOFOLLOW: a symlink planted under this name in a shared folder is refused, not followed.
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(
                code: .cannotOpen, message: "cannot open the writer lock \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.holder(descriptor)
            close(descriptor)
            let who = holder.map { "trove process (pid \($0))" } ?? "trove process"
            throw StoreError(
                code: .locked,
                message: "another \(who) is writing index \(indexPath) — wait for it to finish, or stop it")
        }
        // Who holds it, for the message above; the lock itself is the flock, not this text.
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        // Unlocked before it is closed: a child that another thread is starting holds a copy of every descriptor
        // until its execve, and closing ours alone would leave the flock on until then (seen under load: the next
        // writer of this process refused, "another trove process (pid <our own>)").
        self.init(releasing: {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        })
    }

    /// The pid written by the holder, if readable.
    private static func holder(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard got > 0 else { return nil }
        return Int32(String(decoding: bytes[..<got], as: UTF8.self).split(separator: "\n").first ?? "")
    }

    /// Gives the lock up.
    package func release() {
        let action = releasing
        releasing = nil
        action?()
    }

    deinit { release() }
}
