import CTroveProcess
@preconcurrency import Glibc

/// A child process started by the C shim (`trove_spawn`): vfork (no atfork handlers: OpenBLAS's deadlocked),
/// limits, descriptors in place, execve, with only system calls between vfork and exec, which Foundation's `Process`
/// cannot do with limits of its own. Used for the extraction worker and for the tools the worker runs (`pdftotext`).
package struct Subprocess: Sendable {
    /// The child's process id (and, when confined, its process group's).
    package let pid: pid_t
    /// True when the child leads a process group of its own, so `kill()` reaches everything it started.
    package let ownGroup: Bool

    /// How a child ended.
    package enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// What a child runs under.
    package struct Limits: Sendable, Equatable {
        /// Address-space limit in bytes (RLIMIT_AS), or nil for the parent's.
        package var addressSpace: Int?
        /// Open descriptors (RLIMIT_NOFILE), or nil for the parent's.
        package var openFiles: Int?
        /// No file writes (RLIMIT_FSIZE 0), no core dump, no new privileges, a process group of its own.
        package var confine: Bool
        /// Killed when the starting thread ends: for tools the worker's one thread runs.
        package var dieWithParent: Bool

        /// The limits.
        package init(addressSpace: Int? = nil, openFiles: Int? = nil, confine: Bool = false, dieWithParent: Bool = false) {
            self.addressSpace = addressSpace
            self.openFiles = openFiles
            self.confine = confine
            self.dieWithParent = dieWithParent
        }
    }

    /// Starts the program at `path` (absolute) with `arguments` (argv[0] included) and `environment`;
    /// `descriptors[i]` becomes the child's descriptor i, every other one is closed there. Throws the errno.
    package static func start(
        _ path: String, arguments: [String], environment: [String: String], descriptors: [Int32],
        limits: Limits = Limits()
    ) throws(SpawnError) -> Subprocess {
        let environmentLines = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var spawnLimits = trove_spawn_limits(
            address_space: UInt64(limits.addressSpace ?? 0), open_files: UInt64(limits.openFiles ?? 0),
            confine: limits.confine ? 1 : 0, die_with_parent: limits.dieWithParent ? 1 : 0)
        var pid: pid_t = 0
        let error = withCStrings(arguments) { argv in
            withCStrings(environmentLines) { envp in
                descriptors.withUnsafeBufferPointer { fds in
                    trove_spawn(path, argv, envp, fds.baseAddress, Int32(fds.count), &spawnLimits, &pid)
                }
            }
        }
        guard error == 0 else { throw SpawnError(program: path, errno: error) }
        return Subprocess(pid: pid, ownGroup: limits.confine)
    }

    /// Waits for the child to end (blocking) and reaps it.
    package func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .signalled(SIGKILL) }
        }
        var signal: Int32 = 0
        let code = trove_exit_status(status, &signal)
        return code >= 0 ? .exited(code) : .signalled(signal)
    }

    /// SIGKILL to the child, and to its whole process group when it leads one.
    package func kill() {
        _ = Glibc.kill(ownGroup ? -pid : pid, SIGKILL)
    }

    /// The absolute path of `program`: itself when it contains a slash, else the first executable of that name on
    /// `searchPath` (a PATH value).
    package static func find(_ program: String, searchPath: String?) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        let folders = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for folder in folders where !folder.isEmpty {
            let candidate = "\(folder)/\(program)"
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}

/// A child could not be started.
package struct SpawnError: Error, Sendable, Equatable {
    /// The program's path.
    package let program: String
    /// What failed (vfork's or execve's errno).
    package let errno: Int32

    /// One lowercase phrase, e.g. `could not start /usr/bin/pdftotext: no such file or directory`.
    package var detail: String { "could not start \(program): \(String(cString: strerror(errno)).lowercased())" }
}

/// A signal's name for a message (`SIGSEGV`), or its number.
package func signalName(_ signal: Int32) -> String {
    let names: [Int32: String] = [
        SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT",
        SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
        SIGPIPE: "SIGPIPE", SIGSYS: "SIGSYS",
    ]
    return names[signal] ?? "signal \(signal)"
}

/// Calls `body` with a NULL-terminated array of C strings copied from `strings`, valid during the call.
private func withCStrings<Result>(
    _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
) -> Result {
    let copies = strings.map { strdup($0) } + [nil]
    defer { copies.forEach { free($0) } }
    return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
}
