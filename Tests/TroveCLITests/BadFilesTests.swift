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
            "warning: latin1.txt: invalid UTF-8 replaced with U+FFFD",
        ] {
            #expect(run.error.contains(line + "\n"), "missing: \(line)")
        }
        if !asRoot { #expect(run.error.contains("warning: skipped locked.md: cannot read (")) }

        let store = try IndexStore(path: index, createIfMissing: false)
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
