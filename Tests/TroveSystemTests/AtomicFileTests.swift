@preconcurrency import Glibc
import Foundation
import Testing
import TroveSystem

@Suite("Atomic files")
struct AtomicFileTests {
    /// A fresh folder for one test, holding `cache` with "old" in it; removed after `body`.
    private static func withFolder(_ body: (_ folder: String, _ cache: String) throws -> Void) throws {
        let folder = NSTemporaryDirectory() + "/trove-atomic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "old".write(toFile: folder + "/cache", atomically: false, encoding: .utf8)
        try body(folder, folder + "/cache")
    }

    private static func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func write(_ text: String, to file: FileDescriptor) -> Bool {
        Array(text.utf8).withUnsafeBytes { file.write(all: $0) }
    }

    @Test("a written file replaces the old one whole, mode 0600, with no temporary file left")
    func replaces() throws {
        try Self.withFolder { folder, path in
            // A reader that has the old file open keeps reading the old bytes.
            let old = open(path, O_RDONLY)
            defer { close(old) }
            #expect(AtomicFile.write(to: path) { Self.write("new contents", to: $0) })
            #expect(Self.contents(path) == "new contents")
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            var bytes = [UInt8](repeating: 0, count: 3)
            #expect(read(old, &bytes, 3) == 3 && bytes == Array("old".utf8))
            let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(names == ["cache"])
        }
    }

    @Test("a write that fails halfway leaves the old file as it was, and no half file anywhere")
    func failureLeavesOld() throws {
        try Self.withFolder { folder, path in
            #expect(!AtomicFile.write(to: path) { Self.write("half", to: $0) && false })
            #expect(Self.contents(path) == "old")
            // Without an old file, nothing appears.
            #expect(!AtomicFile.write(to: folder + "/fresh") { _ in false })
            let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(names == ["cache"])
        }
    }

    @Test("a symbolic link planted under the temporary name is never written through")
    func plantedLink() throws {
        try Self.withFolder { folder, path in
            let victim = folder + "/victim"
            try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
            #expect(symlink(victim, path + ".tmp.\(getpid())") == 0)
            #expect(AtomicFile.write(to: path) { Self.write("cache", to: $0) })
            #expect(Self.contents(victim) == "precious")
            #expect(Self.contents(path) == "cache")
        }
    }

    @Test("a folder that cannot be written gives false, not a crash")
    func unwritable() {
        #expect(!AtomicFile.write(to: "/nonexistent-folder/cache") { _ in true })
    }
}
