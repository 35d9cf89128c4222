import Foundation
import Testing
import TroveCLI
import TroveTestSupport

@Suite("Command line usage")
struct UsageTests {
    @Test("trove with no command prints the overview on stderr and exits 64")
    func noCommand() async {
        let run = await trove([], index: "/nonexistent/index.sqlite")
        #expect(run.status == 64)
        #expect(run.error.contains("Usage: trove <command> [options]"))
        #expect(run.output.isEmpty)
    }

    @Test("trove help lists every command on stdout")
    func helpListsCommands() async {
        let run = await trove(["help"], index: "/nonexistent/index.sqlite")
        #expect(run.status == 0)
        for command in ["index", "search", "status", "doctor"] {
            #expect(run.output.contains("\n  \(command) "))
        }
    }

    @Test("every command answers --help with its usage line", arguments: ["index", "search", "status", "doctor"])
    func commandHelp(command: String) async {
        let run = await trove([command, "--help"], index: "/nonexistent/index.sqlite")
        #expect(run.status == 0)
        #expect(run.output.contains("Usage: trove \(command) [options]"))
    }

    @Test("--version prints the version, and says what a build without recorded commit and date is")
    func version() async {
        let run = await trove(["--version"], index: "/nonexistent/index.sqlite")
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("trove \(Launcher.version) ("))
    }

    @Test("trove help CMD is CMD --help; an unknown topic gets a did-you-mean")
    func helpCommand() async {
        for command in ["search", "index", "ask", "completions", "help"] {
            let help = await trove(["help", command], index: "/nonexistent/index.sqlite")
            let flag = await trove([command, "--help"], index: "/nonexistent/index.sqlite")
            #expect(help.status == 0)
            #expect(help.output.contains("Usage: trove \(command)"))
            if command != "help" { #expect(help.output == flag.output) }
        }
        let typo = await trove(["help", "serch"], index: "/nonexistent/index.sqlite")
        #expect(typo.status == 64)
        #expect(typo.error == "Error: no help for 'serch': unknown command 'serch' — did you mean 'search'?\n")
    }

    @Test("completions and the man page cover every command and every visible option of each", arguments: ["bash", "zsh", "fish", "man"])
    func generatedFromDeclarations(kind: String) async {
        let run = await trove(kind == "man" ? ["help", "--man"] : ["completions", kind], index: "/nonexistent/index.sqlite")
        #expect(run.status == 0)
        for command in Launcher.program.commands {
            #expect(run.output.contains(command.name))
            for option in command.options where !option.hidden {
                let name = kind == "man" ? option.long.replacingOccurrences(of: "-", with: "\\-") : String(option.long.dropFirst(2))
                #expect(run.output.contains(name), "\(kind) lacks \(command.name) \(option.long)")
            }
        }
        #expect(!run.output.contains("retry-base-ms"))
    }

    @Test("every command's help lists exactly the options its parser accepts")
    func helpMatchesParser() throws {
        for command in Launcher.program.commands {
            for option in command.options where !option.hidden {
                #expect(command.helpText.contains(option.synopsis), "\(command.name) --help lacks \(option.long)")
            }
        }
    }

    @Test(
        "usage mistakes print Error:, the usage line, and exit 64",
        arguments: [
            (["frobnicate"], "Error: unknown command 'frobnicate'"),
            (["serch", "x"], "Error: unknown command 'serch' — did you mean 'search'?"),
            (["search", "--jsno", "x"], "Error: unknown option '--jsno' — did you mean '--json'?"),
            (
                ["search", "--path", "--json", "x"],
                "Error: --path needs a value (GLOB), got the option '--json' — write --path=VALUE for a value that starts with -"
            ),
            (["search", "--mode", "fast", "x"], "Error: --mode expects hybrid, vector or keyword, got 'fast'"),
            (["search", "-0", "x"], "Error: -0/--null goes with -l/--files"),
            (["index", "--embedder", "olama", "x"], "Error: --embedder expects ollama, openai or builtin, got 'olama' — did you mean 'ollama'?"),
            (["completions", "tcsh"], "Error: no completions for 'tcsh': bash, zsh or fish"),
            (["search"], "Error: what should I search for? give a QUERY"),
            (["search", "-n", "zero", "x"], "Error: -n/--limit expects a whole number of at least 1, got 'zero'"),
            (["search", "--min-score", "2", "x"], "Error: --min-score expects a number from -1 to 1, got '2'"),
            (["search", "--colour", "x"], "Error: unknown option '--colour'"),
            (["index", "--max-file-size", "big", "x"], "Error: --max-file-size expects a size like 10M, 512k or 1048576, got 'big'"),
            (["index", "--max-file-size", "99999999999G", "x"], "Error: --max-file-size '99999999999G' is too large: at most 8589934591G"),
            (["index", "--max-file-size", "99999999999999999999", "x"], "Error: --max-file-size expects a size like 10M, 512k or 1048576, got '99999999999999999999'"),
            (["search", "--limit"], "Error: --limit needs a value"),
            (["status", "extra"], "Error: unexpected argument 'extra'"),
        ])
    func usageErrors(arguments: [String], message: String) async {
        let run = await trove(arguments, index: "/nonexistent/index.sqlite")
        #expect(run.status == 64)
        #expect(run.error.hasPrefix(message + "\n"))
        #expect(run.error.contains("Usage: trove"))
        #expect(run.output.isEmpty)
    }

    @Test("searching an index that does not exist says how to create it")
    func missingIndex() async throws {
        let folder = try TemporaryDirectory()
        let run = await trove(["search", "anything"], index: folder.path + "/none.sqlite")
        #expect(run.status == 1)
        #expect(run.error == "Error: no index at \(folder.path)/none.sqlite — run: trove index FOLDER\n")
    }
}
