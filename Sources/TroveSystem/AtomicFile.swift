@preconcurrency import Glibc

/// A file replaced whole or not at all (the vector cache, the encoder's weights cache): written to a private
/// temporary file beside it, then renamed over it. A reader that has the old file open or mapped keeps the old
/// inode's bytes; a process killed midway leaves at worst a temporary file, never a half-written `path`.
package enum AtomicFile {
    /// Writes `path` through `body`, which gets the temporary file open for writing and says whether all went well.
    /// The temporary file (`path.tmp.PID`) is created with `mode` (0600: what Trove writes is derived from private
    /// text or trusted as weights), exclusively and never through a symbolic link, so a file or link planted under
    /// that name (a shared folder) is never written through; one left by a killed process of the same pid is removed
    /// first, never followed. False, with the temporary file removed and `path` untouched, when anything failed.
    package static func write(to path: String, mode: mode_t = 0o600, _ body: (FileDescriptor) -> Bool) -> Bool {
        let temporary = path + ".tmp.\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return false }
        var ok = body(FileDescriptor(descriptor))
        // No fsync: a file torn by a crash fails its own checks at the next load and is rebuilt, and large
        // synchronous writes stalled other processes' I/O on a busy machine.
        ok = close(descriptor) == 0 && ok
        if ok, rename(temporary, path) == 0 { return true }
        unlink(temporary)
        return false
    }
}
