@preconcurrency import Glibc
import Foundation
import Testing
import TroveStore
import TroveTestSupport

/// A messy folder generated on the fly (no binary junk in the repository): odd names, links, loops, huge lines,
/// deep nesting, binary and undecodable bytes, empty and oversized files.
func writeMessyFolder(_ folder: TemporaryDirectory) throws -> String {
    let root = folder.path + "/messy"
    _ = try folder.write("messy/plain.md", "# Plain\n\nnothing odd here\n")
    _ = try folder.write("messy/with space.md", "# Space\n\na name with a space\n")
    _ = try folder.write("messy/new\nline.md", "# Newline\n\na name with a newline\n")
    _ = try folder.write("messy/café/naïve résumé.md", "# Accents\n\nnon-ASCII folder and file names\n")
    _ = try folder.write("messy/日本語.txt", "日本語のテキスト\n")
    _ = try folder.write("messy/empty.md", "")
    _ = try folder.write("messy/long-line.txt", String(repeating: "longword ", count: 30_000) + "\n")
    let deep = (0..<40).map { "d\($0)" }.joined(separator: "/")
    _ = try folder.write("messy/\(deep)/deep.md", "# Deep\n\nforty folders down\n")
    _ = try folder.write("messy/blob.txt", data: Data([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]))
    _ = try folder.write("messy/latin1.txt", data: Data([0x63, 0x61, 0x66, 0xE9, 0x0A]))
    _ = try folder.write("messy/huge.md", String(repeating: "big words here\n", count: 100_000))
    _ = try folder.write("outside/secret.md", "# Outside\n\nthis file lives outside the indexed folder\n")
    let manager = FileManager.default
    try manager.createSymbolicLink(atPath: root + "/loop", withDestinationPath: ".")
    try manager.createSymbolicLink(atPath: root + "/café/up", withDestinationPath: "..")
    try manager.createSymbolicLink(atPath: root + "/self.md", withDestinationPath: "self.md")
    try manager.createSymbolicLink(atPath: root + "/dangling.md", withDestinationPath: "nowhere.md")
    try manager.createSymbolicLink(atPath: root + "/outside.md", withDestinationPath: folder.path + "/outside/secret.md")
    try manager.createSymbolicLink(atPath: root + "/outside-folder", withDestinationPath: folder.path + "/outside")
    _ = try folder.write("messy/locked.md", "# Locked\n\nno permission\n")
    chmod(root + "/locked.md", 0)
    return root
}

@Suite("A messy folder never aborts a run")
struct BadFilesTests {
    @Test("odd names, links, loops, huge lines, deep folders and bad bytes are each handled, counted and reported")
    func messyFolder() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let root = try writeMessyFolder(folder)
        let index = folder.path + "/i.sqlite"
        let run = await trove(["index", "--max-file-size", "1M", root], index: index, server: server)
        #expect(run.status == 0)
        // root reads every file whatever its mode; anyone else is refused the locked one.
        let asRoot = getuid() == 0
        let unreadable = asRoot ? 2 : 3
        #expect(
            run.output.hasPrefix(
                "\(asRoot ? 11 : 10) new, 0 changed, 0 unchanged, 0 removed, \(2 + unreadable) skipped "
                    + "(1 binary, 1 too large, \(unreadable) unreadable); "))
        for line in [
            "warning: skipped dangling.md: cannot read (broken symbolic link)",
            "warning: skipped self.md: cannot read (broken symbolic link)",
            "warning: skipped huge.md: 1.4 MB is over the 1.0 MB limit (--max-file-size)",
            "warning: skipped blob.txt: binary file",
        ] {
            #expect(run.error.contains(line + "\n"), "missing: \(line)")
        }
        // Latin-1 is read as such (issue 27, item 11), not mangled with a warning.
        #expect(!run.error.contains("latin1.txt"))
        if !asRoot { #expect(run.error.contains("warning: skipped locked.md: cannot read (")) }

        let store = try SQLiteStore(path: index, createIfMissing: false)
        #expect(try store.integrityCheck() == "ok")
        let deep = (0..<40).map { "d\($0)" }.joined(separator: "/") + "/deep.md"
        var expected: Set<String> = [
            "café/naïve résumé.md", deep, "empty.md", "latin1.txt", "long-line.txt", "new\nline.md", "outside.md",
            "plain.md", "with space.md", "日本語.txt",
        ]
        if asRoot { expected.insert("locked.md") }
        // Links to folders (loop, café/up, outside-folder) are not followed; a link to a file is indexed under
        // the link's own name, wherever its target lives.
        #expect(Set(try store.contentRows().map(\.path)) == expected)

        // A rerun changes nothing, and a file that vanishes is removed.
        try FileManager.default.removeItem(atPath: root + "/with space.md")
        let again = await trove(["index", "--max-file-size", "1M", root], index: index, server: server)
        #expect(again.output.hasPrefix("0 new, 0 changed, \(expected.count - 1) unchanged, 1 removed, "))
    }
}

@Suite("Permissions")
struct PermissionTests {
    /// `trove` run as this user, or, under root (CI), as `nobody` through `setpriv`: root reads every file whatever
    /// its mode, so only an unprivileged process can show what a user without permission sees.
    private func unprivileged(_ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", troveExecutable.path] + arguments
        } else {
            process.executableURL = troveExecutable
            process.arguments = arguments
        }
        process.environment = environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        return process
    }

    @Test(
        "a file the user may not read is skipped and named, the rest indexed (as nobody when run as root)",
        .enabled(
            if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "running as root without /usr/bin/setpriv to drop privileges"))
    func unreadableFile() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        _ = try folder.write("notes/open.md", "# Open\n\nanyone may read this\n")
        _ = try folder.write("notes/locked.md", "# Locked\n\nno permission\n")
        _ = try folder.write("work/.keep", "")
        // The unprivileged user must reach the notes and write the index; only locked.md is closed to it.
        for path in [folder.path, folder.path + "/notes"] { chmod(path, 0o755) }
        chmod(folder.path + "/work", 0o777)
        chmod(folder.path + "/notes/locked.md", 0)
        let process = try unprivileged(
            ["index", folder.path + "/notes"],
            environment: [
                "OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": folder.path + "/work/i.sqlite",
                "HOME": folder.path + "/work",
            ])
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let error = await withCheckedContinuation { continuation in
            Thread {
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }.start()
        }
        #expect(process.terminationStatus == 0, "\(error)")
        #expect(error.contains("warning: skipped locked.md: cannot read (permission denied)\n"), "\(error)")
        let store = try SQLiteStore(path: folder.path + "/work/i.sqlite", createIfMissing: false)
        #expect(try store.contentRows().map(\.path) == ["open.md"])
    }
}
