import Testing

@testable import TroveIngest

struct IgnoreRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var rules: String
        var path: String
        var isDirectory: Bool = false
        var excluded: Bool
        var testDescription: String { "\(rules.debugDescription) \(path)\(isDirectory ? "/" : "") → \(excluded)" }
    }

    static let cases: [Case] = [
        // Plain names match at any depth.
        Case(rules: "*.log", path: "a.log", excluded: true),
        Case(rules: "*.log", path: "deep/er/a.log", excluded: true),
        Case(rules: "*.log", path: "a.log.md", excluded: false),
        Case(rules: "build", path: "x/build", isDirectory: true, excluded: true),
        Case(rules: "build", path: "x/build", excluded: true),
        // Globs within one segment.
        Case(rules: "a?c.md", path: "abc.md", excluded: true),
        Case(rules: "a?c.md", path: "a/c.md", excluded: false),
        Case(rules: "[abc].md", path: "b.md", excluded: true),
        Case(rules: "[abc].md", path: "d.md", excluded: false),
        Case(rules: "[a-c]x.md", path: "bx.md", excluded: true),
        Case(rules: "[!a]x.md", path: "ax.md", excluded: false),
        Case(rules: "[!a]x.md", path: "bx.md", excluded: true),
        Case(rules: "*", path: "anything/at/all.md", excluded: true),
        // Comments, blanks, escapes, trailing spaces.
        Case(rules: "# a.md", path: "# a.md", excluded: false),
        Case(rules: "\\#a.md", path: "#a.md", excluded: true),
        Case(rules: "\\!a.md", path: "!a.md", excluded: true),
        Case(rules: "a.md   ", path: "a.md", excluded: true),
        Case(rules: "\n\n", path: "a.md", excluded: false),
        // Negation: the last match wins.
        Case(rules: "*.md\n!keep.md", path: "keep.md", excluded: false),
        Case(rules: "*.md\n!keep.md", path: "other.md", excluded: true),
        Case(rules: "!keep.md\n*.md", path: "keep.md", excluded: true),
        // Directory-only.
        Case(rules: "out/", path: "out", isDirectory: true, excluded: true),
        Case(rules: "out/", path: "out", isDirectory: false, excluded: false),
        Case(rules: "out/", path: "a/out", isDirectory: true, excluded: true),
        // Anchoring: a leading or middle slash.
        Case(rules: "/todo.md", path: "todo.md", excluded: true),
        Case(rules: "/todo.md", path: "sub/todo.md", excluded: false),
        Case(rules: "doc/*.md", path: "doc/a.md", excluded: true),
        Case(rules: "doc/*.md", path: "x/doc/a.md", excluded: false),
        Case(rules: "doc/*.md", path: "doc/sub/a.md", excluded: false),
        // Double star.
        Case(rules: "**/logs", path: "logs", isDirectory: true, excluded: true),
        Case(rules: "**/logs", path: "a/b/logs", isDirectory: true, excluded: true),
        Case(rules: "**/logs/debug.md", path: "a/logs/debug.md", excluded: true),
        Case(rules: "abc/**", path: "abc/x/y.md", excluded: true),
        Case(rules: "abc/**", path: "abc", isDirectory: true, excluded: false),
        Case(rules: "a/**/b.md", path: "a/b.md", excluded: true),
        Case(rules: "a/**/b.md", path: "a/x/y/b.md", excluded: true),
        Case(rules: "a/**/b.md", path: "z/a/x/b.md", excluded: false),
    ]

    @Test("gitignore patterns exclude the paths git would", arguments: cases)
    func pattern(_ c: Case) {
        let rules = IgnoreRules(text: c.rules)
        #expect(rules.isExcluded(c.path, isDirectory: c.isDirectory) == c.excluded)
    }

    @Test("a nested .gitignore applies only under its folder")
    func nestedBase() {
        let rules = IgnoreRules(text: "/local.md\n*.tmp.md", base: "sub")
        #expect(rules.isExcluded("sub/local.md", isDirectory: false))
        #expect(!rules.isExcluded("local.md", isDirectory: false))
        #expect(!rules.isExcluded("sub/deeper/local.md", isDirectory: false))
        #expect(rules.isExcluded("sub/deeper/x.tmp.md", isDirectory: false))
        #expect(!rules.isExcluded("other/x.tmp.md", isDirectory: false))
        #expect(!rules.isExcluded("subway/x.tmp.md", isDirectory: false))
    }
}
