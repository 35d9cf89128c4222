import Testing
import TroveArguments

/// The options of an imaginary `search`, covering every kind of value.
private enum Declared {
    static let limit = Option("--limit", short: "-n", value: "N", .integer(min: 1), help: "how many", default: "10")
    static let json = Option("--json", help: "print JSON")
    static let quiet = Option("--quiet", short: "-q", help: "say less")
    static let verbose = Option("--verbose", short: "-v", help: "say more")
    static let null = Option("--null", short: "-0", help: "end paths with NUL")
    static let path = Option("--path", value: "GLOB", help: "only these paths", repeatable: true)
    static let score = Option("--min-score", value: "S", .number(-1...1), help: "lowest score")
    static let size = Option("--max-size", value: "N", .size, help: "largest file")
    static let weight = Option("--weight", value: "W", .number(0...Double.infinity), help: "keyword weight")
    static let mode = Option(
        "--mode", value: "MODE", .choice([Option.Choice("hybrid"), Option.Choice("vector"), Option.Choice("keyword")]),
        help: "how to rank")
    static let threads = Option("--threads", value: "LIST", .integers(min: 1), help: "thread counts")
    static let secret = Option("--retry-base-ms", value: "MS", .integer(min: 0), help: "for tests", hidden: true)
    static let all = [limit, json, quiet, verbose, null, path, score, size, weight, mode, threads, secret, Option.help]
}

private func parse(_ words: [String]) throws -> Arguments { try Arguments(words, options: Declared.all) }

/// The message of the usage error `words` cause, or nil when they parse.
private func failure(_ words: [String]) -> String? {
    do {
        _ = try parse(words)
        return nil
    } catch {
        return (error as? UsageError)?.message ?? "not a UsageError: \(error)"
    }
}

@Suite("Parsing declared options")
struct ArgumentsTests {
    @Test(
        "every spelling of a value is read",
        arguments: [["-n", "5"], ["-n5"], ["--limit", "5"], ["--limit=5"], ["--limit", "9", "-n", "5"]])
    func spellings(words: [String]) throws {
        #expect(try parse(words + ["query"]).integer(Declared.limit) == 5)
        #expect(try parse(words + ["query"]).operands == ["query"])
    }

    @Test("flags, bundled short flags, and operands in any order")
    func flagsAndOperands() throws {
        let arguments = try parse(["rotate", "-qv", "the", "--json", "key"])
        #expect(arguments.flag(Declared.quiet))
        #expect(arguments.flag(Declared.verbose))
        #expect(arguments.flag(Declared.json))
        #expect(!arguments.flag(Declared.null))
        #expect(arguments.operands == ["rotate", "the", "key"])
    }

    @Test("-0 is a flag when declared, and a negative number is an operand or a value")
    func numbersAndNull() throws {
        let arguments = try parse(["-0", "--min-score", "-0.5", "-3"])
        #expect(arguments.flag(Declared.null))
        #expect(arguments.number(Declared.score) == -0.5)
        #expect(arguments.operands == ["-3"])
    }

    @Test("after -- nothing is an option; - alone is an operand")
    func endOfOptions() throws {
        let arguments = try parse(["--json", "--", "--limit", "-q", "-"])
        #expect(arguments.flag(Declared.json))
        #expect(arguments.integer(Declared.limit) == nil)
        #expect(arguments.operands == ["--limit", "-q", "-"])
    }

    @Test("a repeatable option keeps every value; a value may start with - after =")
    func repeatable() throws {
        let arguments = try parse(["--path", "*.md", "--path=-draft*", "--threads", "1,2,4", "--max-size", "2M"])
        #expect(arguments.values(Declared.path) == ["*.md", "-draft*"])
        #expect(arguments.integers(Declared.threads) == [1, 2, 4])
        #expect(arguments.byteSize(Declared.size) == 2 << 20)
    }

    @Test("a hidden option is accepted")
    func hidden() throws {
        #expect(try parse(["--retry-base-ms", "1"]).integer(Declared.secret) == 1)
    }

    @Test(
        "mistakes are one line that says what was expected and what was given",
        arguments: [
            (
                ["--path", "--json", "x"],
                "--path needs a value (GLOB), got the option '--json' — write --path=VALUE for a value that starts with -"
            ),
            (
                ["-n", "-q"],
                "-n needs a value (N), got the option '-q' — write --limit=VALUE for a value that starts with -"
            ),
            (
                ["--path", "--", "x"],
                "--path needs a value (GLOB), got the option '--' — write --path=VALUE for a value that starts with -"
            ),
            (["--limit"], "--limit needs a value"),
            (["-n", "0"], "-n/--limit expects a whole number of at least 1, got '0'"),
            (["--limit=many"], "-n/--limit expects a whole number of at least 1, got 'many'"),
            (["--min-score", "2"], "--min-score expects a number from -1 to 1, got '2'"),
            (["--max-size", "big"], "--max-size expects a size like 10M, 512k or 1048576, got 'big'"),
            (["--max-size", "9999999999999G"], "--max-size '9999999999999G' is too large: at most 8589934591G"),
            (["--min-score", "nan"], "--min-score expects a number from -1 to 1, got 'nan'"),
            (["--weight", "inf"], "--weight expects a number of at least 0, got 'inf'"),
            (["--threads", "1,,2"], "--threads expects whole numbers of at least 1 separated by commas, got '1,,2'"),
            (["--mode", "hybird"], "--mode expects hybrid, vector or keyword, got 'hybird' — did you mean 'hybrid'?"),
            (["--mode", "fast"], "--mode expects hybrid, vector or keyword, got 'fast'"),
            (["--jsno"], "unknown option '--jsno' — did you mean '--json'?"),
            (["--limt=3"], "unknown option '--limt' — did you mean '--limit'?"),
            (["--verb"], "unknown option '--verb' — did you mean '--verbose'?"),
            (["--colour"], "unknown option '--colour'"),
            (["--retry-base"], "unknown option '--retry-base'"),
            (["-x"], "unknown option '-x'"),
            (["-foo"], "unknown option '-foo' — an argument that starts with - goes after --, as in: -- -foo"),
            (["--json=yes"], "--json takes no value, got '--json=yes'"),
        ])
    func mistakes(words: [String], message: String) {
        #expect(failure(words) == message)
    }

    @Test("did-you-mean: one edit for short words, two from five letters, a swap counts once, or a unique prefix")
    func suggestions() {
        let commands = ["index", "search", "ask", "chat", "status", "serve"]
        #expect(Suggestion.closest(to: "serch", among: commands) == "search")
        #expect(Suggestion.closest(to: "saerch", among: commands) == "search")
        #expect(Suggestion.closest(to: "stauts", among: commands) == "status")
        #expect(Suggestion.closest(to: "aks", among: commands) == "ask")
        #expect(Suggestion.closest(to: "ind", among: commands) == "index")
        #expect(Suggestion.closest(to: "se", among: commands) == nil)
        #expect(Suggestion.closest(to: "frobnicate", among: commands) == nil)
    }
}

@Suite("Help generated from the declarations")
struct HelpTextTests {
    let spec = CommandSpec(
        name: "search", abstract: "Find things.", usage: "tool search [options] QUERY…", discussion: "Prints hits.",
        groups: [
            OptionGroup("Ranking", [Declared.mode, Declared.limit]),
            OptionGroup("Output", [Declared.json, Declared.path, Declared.secret]),
        ],
        epilogue: "Examples:\n  tool search x")

    @Test("every visible option is listed once with its names, value, help, default and choices; hidden ones are not")
    func layout() {
        #expect(
            spec.helpText == """
                Find things.

                Usage: tool search [options] QUERY…

                Prints hits.

                Ranking:
                  --mode MODE         how to rank: hybrid, vector or keyword
                  -n, --limit N       how many (default: 10)

                Output:
                  --json              print JSON
                  --path GLOB         only these paths (repeatable)
                  -h, --help          show this help

                Examples:
                  tool search x
                """)
    }

    @Test("the parser accepts exactly what help lists, plus hidden options")
    func parserMatchesHelp() throws {
        for option in spec.options {
            let words = option.isFlag ? [option.long] : [option.long + "=" + sample(option)]
            _ = try Arguments(words, options: spec.options)
            #expect(option.hidden || spec.helpText.contains(option.synopsis))
        }
    }

    @Test("long help wraps beside its option; explained choices get a line each")
    func wrapping() {
        let option = Option(
            "--mode", value: "MODE",
            .choice([Option.Choice("hybrid", "both rankings fused"), Option.Choice("vector", "meaning only")]),
            help: String(repeating: "word ", count: 30), default: "hybrid")
        let lines = HelpText.entry(option).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.count <= 116 })
        #expect(lines[1].hasPrefix(String(repeating: " ", count: 22) + "word"))
        #expect(lines[2] == String(repeating: " ", count: 24) + "hybrid  both rankings fused")
        #expect(lines[3] == String(repeating: " ", count: 24) + "vector  meaning only")
    }

    private func sample(_ option: Option) -> String {
        switch option.value {
        case .choice(let choices): choices[0].name
        case .integer(let min, _): String(min)
        default: "1"
        }
    }
}

@Suite("Completions and man page generated from the declarations")
struct GeneratedScriptsTests {
    let program = ProgramSpec(
        name: "tool", summary: "does things",
        commands: [
            CommandSpec(
                name: "search", abstract: "Find things.", usage: "tool search QUERY",
                groups: [OptionGroup("Options", [Declared.mode, Declared.limit, Declared.json, Declared.secret])]),
            CommandSpec(
                name: "index", abstract: "Index a folder.", usage: "tool index FOLDER", groups: [],
                operands: .folder),
        ],
        environment: [("TOOL_HOME", "where it lives")], exitStatus: "0 ok, 64 usage")

    @Test("each shell's script names every command and visible option, and no hidden one")
    func scripts() {
        for shell in Completions.Shell.allCases {
            let script = Completions.script(shell, for: program)
            for word in ["search", "index", "limit", "json", "hybrid", "keyword"] {
                #expect(script.contains(word), "\(shell) lacks \(word)")
            }
            #expect(!script.contains("retry-base-ms"), "\(shell) shows a hidden option")
        }
        #expect(Completions.script(.bash, for: program).contains("complete -o filenames -F _tool tool"))
        #expect(Completions.script(.zsh, for: program).hasPrefix("#compdef tool\n"))
        #expect(Completions.script(.fish, for: program).contains("-s n -l limit -r -f -d 'how many'"))
    }

    @Test("the man page has the sections man expects, options as tagged paragraphs, and escaped dashes")
    func manPage() {
        let page = ManPage.render(program, version: "1.0", date: "2026-12-01")
        #expect(page.contains(".TH TOOL 1 \"2026-12-01\" \"tool 1.0\" \"User Commands\"\n"))
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "ENVIRONMENT", "EXIT STATUS"] {
            #expect(page.contains("\n.SH \(section)\n"))
        }
        #expect(page.contains(".TP\n\\fB\\-n\\fR, \\fB\\-\\-limit\\fR \\fIN\\fR\nhow many (default: 10)\n"))
        #expect(!page.contains("retry"))
    }
}
