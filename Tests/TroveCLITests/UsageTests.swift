import Testing
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

    @Test("--version prints the version")
    func version() async {
        let run = await trove(["--version"], index: "/nonexistent/index.sqlite")
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("trove "))
    }

    @Test(
        "usage mistakes print Error:, the usage line, and exit 64",
        arguments: [
            (["frobnicate"], "Error: unknown command 'frobnicate'"),
            (["search"], "Error: what should I search for? give a QUERY"),
            (["search", "-n", "zero", "x"], "Error: -n/--limit expects a whole number of at least 1, got 'zero'"),
            (["search", "--min-score", "2", "x"], "Error: --min-score expects a number from -1 to 1, got '2'"),
            (["search", "--colour", "x"], "Error: unknown option '--colour'"),
            (["index", "--max-file-size", "big", "x"], "Error: --max-file-size expects a size like 10M, 512k or 1048576, got 'big'"),
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
