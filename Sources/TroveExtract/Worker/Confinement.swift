import Foundation
@preconcurrency import Glibc
import Synchronization

/// Bubblewrap around the worker, where it works here: no network (and no other shared namespace), a read-only view
/// of the system folders and of the folders trove's own binary and libraries live in, nothing else of the user's
/// files (no home folder): the file being read arrives as a descriptor. Probed once per worker command by starting
/// the worker confined (`extract-worker --probe`); where it fails (no bwrap, user namespaces off) the worker runs
/// under its rlimits alone and `trove doctor` says so.
package enum Confinement {
    /// Whether the worker can run confined, and how.
    package enum Status: Sendable, Equatable {
        /// bwrap works: its path and version.
        case available(bwrap: String, version: String)
        /// Why not.
        case unavailable(String)
    }

    /// System folders the worker and its tools need (read-only): programs, libraries, poppler-data.
    static let systemFolders = ["/usr"]
    /// What of /etc they need (the loader's cache, fontconfig, Debian's alternatives): not all of it, which holds
    /// keys and passwords.
    static let systemFiles = ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/fonts", "/etc/alternatives"]

    /// `command` wrapped in bwrap, or nil when confinement does not work here (probed the first time).
    package static func wrap(_ command: [String], environment: [String: String], limits: Subprocess.Limits) -> [String]? {
        guard case .available(let bwrap, _) = status(command, environment: environment, limits: limits) else {
            return nil
        }
        return arguments(bwrap: bwrap, command: command) + command
    }

    /// Whether `command` (a worker) runs under bwrap here: cached per command.
    package static func status(
        _ command: [String], environment: [String: String], limits: Subprocess.Limits
    ) -> Status {
        let key = command.joined(separator: "\u{0}")
        if let known = probed.withLock({ $0[key] }) { return known }
        let found = probe(command, environment: environment, limits: limits)
        probed.withLock { $0[key] = found }
        return found
    }

    private static let probed = Mutex<[String: Status]>([:])

    private static func probe(_ command: [String], environment: [String: String], limits: Subprocess.Limits) -> Status {
        guard let bwrap = Subprocess.find("bwrap", searchPath: environment["PATH"]) else {
            return .unavailable("bwrap is not installed (apt-get install bubblewrap)")
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        let wrapped = arguments(bwrap: bwrap, command: command) + command + ["--probe"]
        guard
            let run = try? ToolRun.run(
                bwrap, arguments: wrapped, input: null, environment: environment, outputCap: 4096, limits: limits)
        else { return .unavailable("bwrap could not be started") }
        guard run.termination == .exited(0) else {
            let reason = run.errors.split(separator: "\n").last.map(String.init) ?? "\(run.termination)"
            return .unavailable("bwrap fails here: \(reason.replacingOccurrences(of: "bwrap: ", with: ""))")
        }
        let version = ToolRun.version(of: bwrap, environment: environment, flag: "--version") ?? "?"
        return .available(bwrap: bwrap, version: version)
    }

    /// bwrap's options for `command`: every namespace unshared, the system read-only, the folders of the program and
    /// of its libraries read-only, a private /tmp.
    package static func arguments(bwrap: String, command: [String]) -> [String] {
        // No --die-with-parent: it ties bwrap to the thread that started it (PR_SET_PDEATHSIG), and the service's
        // dispatch threads come and go; the host kills the worker's process group, and the worker's own alarm
        // ends it if the host is gone.
        var arguments = [bwrap, "--unshare-all"]
        for folder in systemFolders { arguments += ["--ro-bind", folder, folder] }
        for path in systemFiles { arguments += ["--ro-bind-try", path, path] }
        for link in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) {
                arguments += ["--symlink", target, link]
            } else if FileManager.default.fileExists(atPath: link) {
                arguments += ["--ro-bind", link, link]
            }
        }
        for folder in programFolders(command) { arguments += ["--ro-bind", folder, folder] }
        arguments += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--chdir", "/", "--"]
        return arguments
    }

    /// The folders of the worker's binary and of the shared libraries it loads (`ldd`: a debug build's Swift
    /// runtime in the toolchain) outside the system folders: what a build outside /usr needs to start.
    static func programFolders(_ command: [String]) -> [String] {
        guard let program = command.first else { return [] }
        var paths = [program]
        if let ldd = Subprocess.find("ldd", searchPath: "/usr/bin:/bin") {
            let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
            defer { close(null) }
            let output = (try? ToolRun.run(ldd, arguments: [ldd, program], input: null, environment: [:], outputCap: 1 << 20))
                .map { String(decoding: $0.output, as: UTF8.self) } ?? ""
            // Lines read `libswiftCore.so => /opt/swift/usr/lib/swift/linux/libswiftCore.so (0x…)`.
            for line in output.split(separator: "\n") {
                guard let arrow = line.range(of: "=> /") else { continue }
                let path = line[line.index(before: arrow.upperBound)...].prefix { $0 != " " }
                paths.append(String(path))
            }
        }
        var folders: [String] = []
        for path in paths {
            let folder = (path as NSString).deletingLastPathComponent
            let system = systemFolders.contains { folder == $0 || folder.hasPrefix($0 + "/") }
            guard !folder.isEmpty, !system, !folders.contains(folder), FileManager.default.fileExists(atPath: folder)
            else { continue }
            folders.append(folder)
        }
        return folders
    }
}
