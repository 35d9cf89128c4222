import Foundation
import Testing
import TroveKit

@testable import TroveCLI

@Suite("every setting is declared once, and help and trove config show it")
struct SettingsDeclarationTests {
    /// Variables read but not Trove's settings: the platform's (home, XDG folders, terminal, the search path for pip)
    /// and OpenBLAS's own.
    static let notSettings: Set<String> = [
        "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "TERM", "PATH", "OPENBLAS_CORETYPE",
    ]

    /// Every `environment["NAME"]` and `getenv("NAME")` in the shipped targets' sources (not the test support's,
    /// nor trove-bench's).
    static func variablesRead() throws -> Set<String> {
        let sources = repositoryRoot + "/Sources"
        let pattern = try NSRegularExpression(pattern: #"(?:environment\["|getenv\(")([A-Z][A-Z0-9_]*)""#)
        var names: Set<String> = []
        let files = FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") && !file.hasPrefix("trove-bench/") && !file.hasPrefix("TroveTest") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert((text as NSString).substring(with: match.range(at: 1)))
            }
        }
        return names.subtracting(notSettings)
    }

    @Test("every environment variable the sources read is in trove --help and the man page")
    func variablesAreDocumented() throws {
        let read = try Self.variablesRead()
        #expect(read.contains("OLLAMA_HOST") && read.contains("NO_COLOR"), "the scan finds reads")
        let help = Launcher.overview
        let man = ManPage.render(Launcher.program, version: "1", date: "")
        for name in read.sorted() {
            #expect(Setting.all.contains { $0.variables.contains { $0.name == name } }, "\(name) is not declared")
            #expect(help.contains("  \(name) "), "\(name) is missing from trove --help")
            #expect(man.contains(name), "\(name) is missing from the man page")
        }
    }

    @Test("every config-file key is listed by trove config and its --help")
    func keysAreListed() throws {
        var arguments = try Arguments([], options: CommonOptions.options)
        let common = try CommonOptions(parsing: &arguments)
        let listed = try Settings(common, environment: ["HOME": "/nowhere"]).entries(common: common).map(\.key)
        #expect(Setting.fileKeys.count == 13)
        for key in Setting.fileKeys {
            #expect(listed.contains(key), "trove config does not list \(key)")
            #expect(ConfigCommand.discussion.contains("  \(key) "), "trove config --help does not list \(key)")
        }
    }

    @Test("a bad TROVE_EMBED_THREADS is an error naming it, not silently ignored")
    func badThreads() async throws {
        let run = await trove(
            ["embed", "--provider", "builtin", "hi"], index: "/nowhere/i.sqlite",
            environment: ["TROVE_EMBED_THREADS": "abc"])
        #expect(run.status == 64)
        #expect(
            run.error.hasPrefix(
                "Error: TROVE_EMBED_THREADS 'abc' is not a number of threads — give a whole number, e.g. 4, or unset it "
                    + "for one per CPU\n"))
    }

    @Test("a bad TROVE_EMBED_PRECISION is an error naming it and the choices")
    func badPrecision() async throws {
        let run = await trove(
            ["embed", "--provider", "builtin", "hi"], index: "/nowhere/i.sqlite",
            environment: ["TROVE_EMBED_PRECISION": "fp8"])
        #expect(run.status == 64)
        #expect(
            run.error.hasPrefix(
                "Error: TROVE_EMBED_PRECISION 'fp8' is not a precision — give fp32, bf16, int8, int16 or auto\n"))
    }

    @Test("trove index --precision beats TROVE_EMBED_PRECISION; auto is the CPU's choice; another word is exit 64")
    func precisionFlag() async throws {
        var arguments = try Arguments([], options: CommonOptions.options)
        let common = try CommonOptions(parsing: &arguments)
        var settings = try Settings(common, environment: ["HOME": "/nowhere", "TROVE_EMBED_PRECISION": "fp8"])
        #expect(try IndexCommand.parse(["--precision", "fp32"]).precision == "fp32")
        settings.precisionFlag = "fp32"
        #expect(try settings.embedPrecision() == .fp32)
        settings.precisionFlag = "auto"
        #expect(try settings.embedPrecision() == nil)
        settings.precisionFlag = nil
        #expect(throws: UsageError.self) { try settings.embedPrecision() }
        let run = await trove(["index", "--precision", "fp8", "/nowhere"], index: "/nowhere/i.sqlite")
        #expect(run.status == 64)
        #expect(run.error.contains("--precision"), "\(run.error)")
    }
}

@Suite("the indexing options are declared once for every command that indexes")
struct IndexingOptionsTests {
    @Test("trove index and trove watch take the same indexing options, --provider included", arguments: ["index", "watch"])
    func sameOptions(command: String) throws {
        let spec = try #require(Launcher.program.command(command))
        let names = Set(spec.groups.flatMap(\.options).map(\.long))
        for option in IndexingOptions.selection + IndexingOptions.retrying {
            #expect(names.contains(option.long), "trove \(command) lacks \(option.long)")
        }
        let words = ["--provider", "builtin", "--model", "m", "--include", "*.md", "--retries", "5"]
        let index = try IndexCommand.parse(words).indexing
        let watch = try WatchCommand.parse(words).indexing
        for parsed in [index, watch] {
            #expect(parsed.provider == .builtin && parsed.model == "m")
            #expect(parsed.index.crawl.includes == ["*.md"] && parsed.index.retry.retries == 5)
        }
    }

    @Test(
        "serve --watch and mcp --watch take the crawl and retry options of trove watch, and refuse them without --watch",
        arguments: ["serve", "mcp"])
    func serversWatchOptions(command: String) throws {
        let spec = try #require(Launcher.program.command(command))
        let names = Set(spec.groups.flatMap(\.options).map(\.long))
        for option in IndexingOptions.watching {
            #expect(names.contains(option.long), "trove \(command) lacks \(option.long)")
        }
        let words = ["--watch", "--exclude", "drafts/**", "--max-file-size", "1M", "--retries", "5"]
        let parsed =
            command == "serve" ? try ServeCommand.parse(words).indexing : try McpCommand.parse(words).options.indexing
        #expect(parsed.index.crawl.excludes == ["drafts/**"] && parsed.index.crawl.maxFileSize == 1 << 20)
        #expect(parsed.watch.index.retry.retries == 5)
        let error = #expect(throws: UsageError.self) {
            if command == "serve" { _ = try ServeCommand.parse(["--exclude", "x"]) }
            else { _ = try McpCommand.parse(["--exclude", "x"]) }
        }
        #expect(error?.message == "--exclude applies to the watch: give --watch too")
    }

    @Test("models, pull and rm share the model server's options")
    func modelServerOptions() throws {
        for command in ["models", "pull", "rm"] {
            let spec = try #require(Launcher.program.command(command))
            let names = Set(spec.groups.flatMap(\.options).map(\.long))
            #expect(ModelServerOptions.options.allSatisfy { names.contains($0.long) }, "trove \(command)")
        }
    }
}

@Suite("where the index lives, parsed once")
struct IndexLocationSettingTests {
    @Test(
        "index path: flag, then TROVE_INDEX, then XDG_DATA_HOME, then ~/.local/share",
        arguments: [
            ("/x/i.sqlite", ["TROVE_INDEX": "/y.sqlite"], "/x/i.sqlite"),
            (nil, ["TROVE_INDEX": "/y.sqlite", "XDG_DATA_HOME": "/d"], "/y.sqlite"),
            (nil, ["XDG_DATA_HOME": "/d", "HOME": "/h"], "/d/trove/index.sqlite"),
            (nil, ["HOME": "/h"], "/h/.local/share/trove/index.sqlite"),
            (nil, ["XDG_DATA_HOME": "relative", "HOME": "/h"], "/h/.local/share/trove/index.sqlite"),
            ("~/notes.sqlite", ["HOME": "/h"], "/h/notes.sqlite"),
        ] as [(String?, [String: String], String)])
    func indexLocation(flag: String?, environment: [String: String], expected: String) throws {
        #expect(try Self.location(flag: flag, environment) == .file(expected))
    }

    @Test("a PostgreSQL URL is told from a path once, wherever it was given")
    func postgres() throws {
        let url = "postgresql://trove:secret@db/notes?schema=work"
        #expect(try Self.location(flag: url, [:]) == .postgres(url))
        #expect(try Self.location(flag: nil, ["TROVE_INDEX": "postgres://db/notes"]) == .postgres("postgres://db/notes"))
        #expect(IndexLocation(url).description == "postgresql://trove@db/notes?schema=work")
    }

    /// The location `--index flag` and `environment` give (no config file).
    static func location(flag: String?, _ environment: [String: String]) throws -> IndexLocation {
        var arguments = try Arguments(flag.map { ["--index", $0] } ?? [], options: CommonOptions.options)
        let common = try CommonOptions(parsing: &arguments)
        let isolated = environment.merging(["XDG_CONFIG_HOME": "/nonexistent-config"]) { $1 }
        return try Settings(common, environment: isolated).location
    }
}
