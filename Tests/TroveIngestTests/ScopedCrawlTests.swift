import Foundation
import Testing
import TroveIngest
import TroveTestSupport

/// `crawl(root:within:)`: the walk `trove watch` runs over what changed must decide exactly as the full walk does.
@Suite("Scoped crawl: the same files as a full walk, limited to the paths asked for")
struct ScopedCrawlTests {
    func tree() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        try dir.write(".gitignore", "drafts/\n*.log.md\n")
        try dir.write("sub/.gitignore", "local.md\n")
        try dir.touch([
            "a.md", "b.log.md", "drafts/d.md", "sub/local.md", "sub/keep.md", "sub/deep/x.md", "sub/deep/y.md",
            "other/z.md", ".hidden/h.md",
        ])
        return dir
    }

    func scoped(_ root: String, _ within: [String]) throws -> (files: [String], folders: [String]) {
        var files: [String] = []
        var folders: [String] = []
        try Crawler().crawl(
            root: root, within: within, onFolder: { folders.append($0) }, onFile: { files.append($0.relativePath) },
            onSkip: { _ in })
        return (files, folders)
    }

    @Test("every scope gives the full walk's files under it: ancestors' ignore files still apply")
    func sameAsFullWalk() throws {
        let dir = try tree()
        let full = try crawl(dir.path).files
        for scope in [
            ["a.md"], ["b.log.md"], ["drafts"], ["drafts/d.md"], ["sub"], ["sub/local.md"], ["sub/deep"],
            ["sub/deep/x.md", "other"], [".hidden/h.md"], ["missing.md"], ["sub/deep/missing"], [""],
        ] {
            let expected = full.filter { path in Crawler.isWithin(path, scope: scope) }
            #expect(try scoped(dir.path, scope).files == expected, "\(scope)")
        }
    }

    @Test("onFolder names each folder entered inside the scope, not the ones passed through")
    func foldersEntered() throws {
        let dir = try tree()
        #expect(try scoped(dir.path, [""]).folders == ["", "other", "sub", "sub/deep"])
        #expect(try scoped(dir.path, ["sub/deep"]).folders == ["sub/deep"])
        #expect(try scoped(dir.path, ["sub"]).folders == ["sub", "sub/deep"])
        #expect(try scoped(dir.path, ["drafts"]).folders == [], "an ignored folder is not entered")
    }

    @Test("isWithin: a path is within a scope when it is one of its paths or below one")
    func within() {
        #expect(Crawler.isWithin("a/b.md", scope: ["a"]))
        #expect(Crawler.isWithin("a", scope: ["a"]))
        #expect(!Crawler.isWithin("ab/c.md", scope: ["a"]))
        #expect(!Crawler.isWithin("a", scope: ["a/b"]))
        #expect(Crawler.isWithin("anything", scope: [""]))
    }
}
