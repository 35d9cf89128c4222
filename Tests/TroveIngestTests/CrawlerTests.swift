import Foundation
import Testing
import TroveIngest
import TroveTestSupport

struct CrawlerTests {
    @Test("files come in sorted path order, hidden folders, .git, node_modules and .build are skipped")
    func orderAndDefaultSkips() throws {
        let dir = try TemporaryDirectory()
        try dir.touch([
            "b.md", "a.md", "a/x.md", "a.b/y.md", "notes.txt", "README", "Z.swift",
            ".hidden.md", ".obsidian/z.md", "node_modules/m.md", ".git/c.md", ".build/d.md", "sub/node_modules/e.md",
        ])
        try dir.write("photo.png", "not text")
        try dir.write("data.json", "{}")
        let first = try crawl(dir.path)
        #expect(first.files == ["README", "Z.swift", "a.b/y.md", "a.md", "a/x.md", "b.md", "notes.txt"])
        #expect(first.skipped == [], "images and data files are left out without a warning")
        let second = try crawl(dir.path)
        #expect(second.files == first.files)
    }

    @Test("crawled files carry the standardized root, size and a nanosecond mtime")
    func metadata() throws {
        let dir = try TemporaryDirectory()
        try dir.write("sub/a.md", "hello")
        let before = Int64(Date().timeIntervalSince1970 - 5) * 1_000_000_000
        let result = try crawl(dir.path + "/sub/..//./")
        let file = try #require(result.crawled.first)
        #expect(file.root == dir.path)
        #expect(file.relativePath == "sub/a.md")
        #expect(file.absolutePath == dir.path + "/sub/a.md")
        #expect(file.size == 5)
        #expect(file.modifiedNanoseconds > before)
        var info = stat()
        #expect(stat(file.absolutePath, &info) == 0)
        #expect(file.modifiedNanoseconds == Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    @Test(
        "a root path is made absolute and standardized",
        arguments: [
            ("/a/b/../c/./", "/a/c"), ("/a//b///", "/a/b"), ("/", "/"), ("/..", "/"), ("/a/b/../../..", "/"),
        ])
    func standardize(input: String, expected: String) {
        #expect(Crawler.standardizedRoot(input) == expected)
    }

    @Test("a relative root is resolved against the current directory")
    func relativeRoot() {
        let cwd = FileManager.default.currentDirectoryPath
        #expect(Crawler.standardizedRoot("notes/../docs") == Crawler.standardizedRoot(cwd + "/docs"))
        #expect(Crawler.standardizedRoot(".") == Crawler.standardizedRoot(cwd))
    }

    @Test("a missing root is an error naming the folder")
    func missingRoot() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: CrawlError(message: "no such folder: \(dir.path)/nope")) { try crawl(dir.path + "/nope/") }
        let error = #expect(throws: CrawlError.self) { try crawl(dir.path + "/nope") }
        #expect(error?.description == "no such folder: \(dir.path)/nope")
    }

    @Test("a root that is a file is an error that says to pass its folder")
    func rootIsFile() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("a.md", "x")
        #expect(throws: CrawlError(message: "not a folder: \(file) — pass the folder that holds it")) {
            try crawl(file)
        }
    }

    @Test(".gitignore at any level, nested rules override parents, .troveignore too, excluded folders stay out")
    func ignoreFiles() throws {
        let dir = try TemporaryDirectory()
        try dir.write(".gitignore", "*.log.md\nsecret/\n!secret/s.md\ndrafts/*\n!drafts/keep.md\n/top.md\n")
        try dir.write("sub/.gitignore", "!*.log.md\nlocal.md\n")
        try dir.write(".troveignore", "private.md\n")
        try dir.touch([
            "a.log.md", "sub/a.log.md", "secret/s.md", "drafts/x.md", "drafts/keep.md", "private.md",
            "sub/private.md", "ok.md", "top.md", "sub/top.md", "sub/local.md", "local.md",
        ])
        let result = try crawl(dir.path)
        #expect(result.files == ["drafts/keep.md", "local.md", "ok.md", "sub/a.log.md", "sub/top.md"])
    }

    @Test(".troveignore wins over .gitignore in the same folder")
    func troveignoreWins() throws {
        let dir = try TemporaryDirectory()
        try dir.write(".gitignore", "*.txt\n")
        try dir.write(".troveignore", "!keep.txt\n")
        try dir.touch(["keep.txt", "drop.txt"])
        #expect(try crawl(dir.path).files == ["keep.txt"])
    }

    struct GlobCase: Sendable, CustomTestStringConvertible {
        var includes: [String] = []
        var excludes: [String] = []
        var expected: [String]
        var testDescription: String { "include \(includes) exclude \(excludes)" }
    }

    @Test(
        "include and exclude globs",
        arguments: [
            GlobCase(expected: ["docs/a.md", "docs/sub/b.md", "notes/c.md", "notes/c.txt", "x.md"]),
            GlobCase(includes: ["*.md"], expected: ["docs/a.md", "docs/sub/b.md", "notes/c.md", "x.md"]),
            GlobCase(includes: ["docs/**"], expected: ["docs/a.md", "docs/sub/b.md"]),
            GlobCase(includes: ["docs"], expected: ["docs/a.md", "docs/sub/b.md"]),
            GlobCase(
                includes: ["*.md", "*.txt"], excludes: ["docs/sub"],
                expected: ["docs/a.md", "notes/c.md", "notes/c.txt", "x.md"]),
            GlobCase(excludes: ["notes"], expected: ["docs/a.md", "docs/sub/b.md", "x.md"]),
            GlobCase(excludes: ["*.txt", "/x.md"], expected: ["docs/a.md", "docs/sub/b.md", "notes/c.md"]),
            GlobCase(excludes: ["**/sub/**"], expected: ["docs/a.md", "notes/c.md", "notes/c.txt", "x.md"]),
            GlobCase(includes: ["*.md", "!docs/**"], expected: ["notes/c.md", "x.md"]),
        ])
    func globs(_ c: GlobCase) throws {
        let dir = try TemporaryDirectory()
        try dir.touch(["docs/a.md", "docs/sub/b.md", "notes/c.md", "notes/c.txt", "x.md"])
        #expect(try crawl(dir.path, CrawlOptions(includes: c.includes, excludes: c.excludes)).files == c.expected)
    }

    @Test("a file over the size limit is skipped with a warning, without being read")
    func oversized() throws {
        let dir = try TemporaryDirectory()
        try dir.write("big.md", String(repeating: "x", count: 2000))
        try dir.write("small.md", "ok")
        let result = try crawl(dir.path, CrawlOptions(maxFileSize: 1024))
        #expect(result.files == ["small.md"])
        #expect(result.skipped == ["skipped big.md: 2.0 KB is over the 1.0 KB limit (--max-file-size)"])
    }

    @Test("a PDF is capped by the extraction's input limit, not --max-file-size")
    func extractedCap() throws {
        let dir = try TemporaryDirectory()
        try dir.write("report.pdf", String(repeating: "x", count: 2000))
        // A sparse file past the 256 MiB cap: only its size is looked at.
        let huge = open(dir.path + "/huge.pdf", O_CREAT | O_WRONLY, 0o644)
        #expect(ftruncate(huge, 300 << 20) == 0)
        close(huge)
        let result = try crawl(dir.path, CrawlOptions(maxFileSize: 1024))
        #expect(result.files == ["report.pdf"])
        #expect(result.skipped == ["skipped huge.pdf: 300.0 MB is over the 256.0 MB a document is read up to"])
    }

    @Test("a dangling symlink and a FIFO are reported as unreadable, not crashed on or opened")
    func unreadableSpecials() throws {
        let dir = try TemporaryDirectory()
        try dir.write("ok.md", "ok")
        #expect(symlink(dir.path + "/missing.md", dir.path + "/gone.md") == 0)
        #expect(mkfifo(dir.path + "/pipe.md", 0o644) == 0)
        #expect(mkfifo(dir.path + "/pipe.png", 0o644) == 0)
        let result = try crawl(dir.path)
        #expect(result.files == ["ok.md"])
        #expect(
            result.skipped == [
                "skipped gone.md: cannot read (broken symbolic link)",
                "skipped pipe.md: cannot read (not a regular file)",
            ])
    }

    @Test("chmod 000 files and folders are skipped as unreadable", .enabled(if: getuid() != 0, "root reads everything"))
    func permissionDenied() throws {
        let dir = try TemporaryDirectory()
        try dir.touch(["locked.md", "closed/inner.md", "ok.md"])
        chmod(dir.path + "/locked.md", 0)
        chmod(dir.path + "/closed", 0)
        defer { chmod(dir.path + "/closed", 0o755) }
        let result = try crawl(dir.path)
        #expect(result.files == ["ok.md"])
        #expect(
            result.skipped == [
                "skipped closed/: cannot read (permission denied)",
                "skipped locked.md: cannot read (permission denied)",
            ])
    }

    @Test("a symlink to a folder is not followed (no cycles); a symlink to a file is indexed under its own name")
    func symlinks() throws {
        let dir = try TemporaryDirectory()
        try dir.touch(["real/a.md"])
        #expect(symlink(dir.path, dir.path + "/real/loop") == 0)
        #expect(symlink(dir.path + "/real", dir.path + "/alias") == 0)
        #expect(symlink(dir.path + "/real/a.md", dir.path + "/link.md") == 0)
        let result = try crawl(dir.path)
        #expect(result.files == ["link.md", "real/a.md"])
        #expect(result.skipped == [])
    }

    @Test("an error thrown by onFile stops the walk and reaches the caller")
    func onFileThrows() throws {
        struct Stop: Error {}
        let dir = try TemporaryDirectory()
        try dir.touch(["a.md", "b.md"])
        var seen: [String] = []
        #expect(throws: Stop.self) {
            try Crawler().crawl(
                root: dir.path,
                onFile: {
                    seen.append($0.relativePath)
                    throw Stop()
                }, onSkip: { _ in })
        }
        #expect(seen == ["a.md"])
    }

    @Test(
        "skip warnings read like a sentence",
        arguments: [
            (SkippedFile(path: "notes/a.bin", reason: .binary), "skipped notes/a.bin: binary file"),
            (
                SkippedFile(path: "big.md", reason: .tooLarge(size: 12 << 20, limit: 10 << 20)),
                "skipped big.md: 12.0 MB is over the 10.0 MB limit (--max-file-size)"
            ),
            (
                SkippedFile(path: "x.md", reason: .unreadable("permission denied")),
                "skipped x.md: cannot read (permission denied)"
            ),
            (
                SkippedFile(path: "y.md", reason: .tooLarge(size: 3 << 29, limit: 500)),
                "skipped y.md: 1.5 GB is over the 500 bytes limit (--max-file-size)"
            ),
        ])
    func skipDescriptions(skipped: SkippedFile, expected: String) {
        #expect(skipped.description == expected)
    }
}

@Suite("byte sizes, one rule")
struct ByteSizeTests {
    @Test(
        "binary units with one decimal, rounded half up; bytes below a KB",
        arguments: [
            (0, "0 bytes"), (1, "1 byte"), (1023, "1023 bytes"), (1024, "1.0 KB"), (1075, "1.0 KB"), (1076, "1.1 KB"), (10 << 20, "10.0 MB"),
            (4_000_000, "3.8 MB"), (3 << 30, "3.0 GB"), (5 << 40, "5.0 TB"),
        ] as [(Int64, String)])
    func format(bytes: Int64, shown: String) {
        #expect(ByteSize.format(bytes) == shown)
    }
}
