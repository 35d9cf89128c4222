import Testing
import TroveKit
import TroveStore

@Suite("Search filters")
struct SearchFilterTests {
    func document(_ path: String, root: String = "/home/maya/notes", mtime: Int64 = 0) -> SearchableDocument {
        SearchableDocument(id: 1, rootPath: root, path: path, modifiedNanoseconds: mtime)
    }

    @Test(
        "path globs match file names, folders, and paths from the indexed folder",
        arguments: [
            ("*.md", "engineering/deploy.md", true),
            ("*.md", "howto/python-venv.rst", false),
            ("engineering", "engineering/deploy.md", true),
            ("engineering", "notes/engineering-ideas.txt", false),
            ("notes/retros", "notes/retros/2024-q3-retro.md", true),
            ("retros/*.md", "notes/retros/2024-q3-retro.md", false),
            ("**/retros/*.md", "notes/retros/2024-q3-retro.md", true),
            ("howto/*.rst", "howto/python-venv.rst", true),
            ("/home/maya/notes/howto", "howto/ssh-config.md", true),
            ("/home/maya/other", "howto/ssh-config.md", false),
        ])
    func globs(pattern: String, path: String, expected: Bool) {
        #expect(SearchFilter(pathGlobs: [pattern]).matches(document(path)) == expected)
    }

    @Test("extensions, roots and times combine with AND; values of one kind with OR")
    func combination() {
        let filter = SearchFilter(extensions: ["md", ".TXT"], modifiedSince: 100, modifiedBefore: 200, roots: ["notes"])
        #expect(filter.matches(document("a/b.md", mtime: 150)))
        #expect(filter.matches(document("a/c.txt", mtime: 100)))
        #expect(!filter.matches(document("a/b.rst", mtime: 150)))
        #expect(!filter.matches(document("a/b.md", mtime: 200)))
        #expect(!filter.matches(document("a/b.md", mtime: 99)))
        #expect(!filter.matches(document("a/b.md", root: "/home/maya/work", mtime: 150)))
        #expect(!filter.matches(document("Makefile", mtime: 150)))
        #expect(SearchFilter().isEmpty && SearchFilter().matches(document("anything")))
    }

    @Test("a root is named by its absolute path or its last folder name")
    func rootNames() {
        #expect(SearchFilter.root("/home/maya/notes", isNamed: "notes"))
        #expect(SearchFilter.root("/home/maya/notes", isNamed: "/home/maya/notes/"))
        #expect(!SearchFilter.root("/home/maya/notes", isNamed: "maya"))
    }

    @Test("dates parse as local time; ages count back from now; nonsense is refused")
    func times() {
        let now: Int64 = 1_700_000_000
        #expect(SearchFilter.parseTime("7d", now: now) == (now - 7 * 86_400) * 1_000_000_000)
        #expect(SearchFilter.parseTime("12h", now: now) == (now - 12 * 3600) * 1_000_000_000)
        let day = SearchFilter.parseTime("2024-05-01")
        let later = SearchFilter.parseTime("2024-05-01T09:30")
        #expect(day != nil && later == day.map { $0 + (9 * 3600 + 30 * 60) * 1_000_000_000 })
        for bad in ["yesterday", "2024-02-31", "2024-5-1", "2024-05-01T25:00", "7x", ""] {
            #expect(SearchFilter.parseTime(bad) == nil, "\(bad)")
        }
    }
}
