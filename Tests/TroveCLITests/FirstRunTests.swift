import Foundation
import Testing
import TroveCLI
import TroveTestSupport
import TroveTestTraits

/// A new user's machine: an empty HOME (so no index and no model of the user's), no Ollama answering, and whatever
/// else is given; `trove` runs in-process with exactly this environment.
struct FreshMachine {
    let home: TemporaryDirectory
    let closed: ClosedPort
    var environment: [String: String]

    init(_ extra: [String: String] = [:]) throws {
        home = try TemporaryDirectory()
        closed = try ClosedPort()
        environment = [
            "HOME": home.path, "OLLAMA_HOST": closed.baseURL.absoluteString,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ].merging(extra) { $1 }
    }

    var ollama: String { closed.baseURL.absoluteString }
    /// Where the default index lives in this HOME.
    var defaultIndex: String { home.path + "/.local/share/trove/index.sqlite" }
    /// Where the user's built-in model lives in this HOME.
    var modelFolder: String { home.path + "/.local/share/trove/models/all-minilm-l6-v2" }

    func trove(_ arguments: [String], _ extra: [String: String] = [:]) async -> Invocation {
        let output = CapturedStream()
        let error = CapturedStream()
        let status = await Launcher.run(
            arguments,
            console: Console(output: output, error: error, environment: environment.merging(extra) { $1 }))
        return Invocation(status: status, output: output.text, error: error.text)
    }

    /// A folder of two notes to index.
    func notes() throws -> String {
        try home.write("notes/a.md", "# Basil\n\nThe basil droops when the soil stays wet.\n")
        try home.write("notes/b.md", "# Keys\n\nRotate the stripe key every quarter.\n")
        return home.path + "/notes"
    }

    /// The installed model's files, visible to this machine as `TROVE_MODELS`.
    static var withModel: [String: String] { ["TROVE_MODELS": (BuiltinModel.folder as NSString).deletingLastPathComponent] }
}

@Suite("First run: no Ollama, a new index", .offCooperativePool)
struct FirstRunTests {
    static let note =
        "so this new index uses Trove's built-in model, all-MiniLM-L6-v2 (English, 384 dimensions, runs in this "
        + "process); to move to an Ollama model later: trove index --reembed --embedder ollama --model nomic-embed-text"

    @Test(
        "no embedder chosen and no Ollama: the built-in model, one note line, recorded for later commands",
        .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason))
    func fallsBackToBuiltin() async throws {
        let machine = try FreshMachine(FreshMachine.withModel.merging(["TROVE_EMBED_THREADS": "1"]) { $1 })
        let run = await machine.trove(["index", try machine.notes()])
        #expect(run.status == 0, "\(run.error)")
        let notes = run.error.split(separator: "\n").filter { $0.hasPrefix("note: ") }
        #expect(notes == ["note: no Ollama answers at \(machine.ollama), \(Self.note)"], "\(run.error)")
        #expect(run.output.contains("with all-minilm-l6-v2 in"), "\(run.output)")
        // Recorded: later commands need no flag, and a second run says nothing more about it.
        let search = await machine.trove(["search", "-l", "my basil is drooping"])
        #expect(search.status == 0, "\(search.error)")
        #expect(search.output.hasPrefix(machine.home.path + "/notes/a.md"), "\(search.output)")
        let again = await machine.trove(["index"])
        #expect(again.status == 0, "\(again.error)")
        #expect(!again.error.contains("note:"), "\(again.error)")
        let status = await machine.trove(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        #expect(object?["embedder"] as? String == "builtin", "\(status.output)")
    }

    @Test("no Ollama and no built-in model: the error names both fixes, exit 69")
    func neitherIsThere() async throws {
        let machine = try FreshMachine()
        let run = await machine.trove(["index", try machine.notes()])
        #expect(run.status == 69)
        #expect(
            run.error.hasSuffix(
                "Error: cannot index: no Ollama answers at \(machine.ollama) and the built-in model is not installed "
                    + "— start Ollama (ollama serve), or install the built-in model (no server needed): trove models "
                    + "install builtin\n"), "\(run.error)")
    }

    @Test(
        "a chosen embedder is never overridden: flag, model, environment or config file keep today's Ollama error",
        .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason),
        arguments: [
            (["--embedder", "ollama"], [:]), (["--model", "nomic-embed-text"], [:]),
            ([], ["TROVE_PROVIDER": "ollama"]), ([], ["TROVE_EMBED_MODEL": "all-minilm"]),
            ([], ["TROVE_CONFIG": "CONFIG"]),
        ] as [([String], [String: String])])
    func chosenEmbedderKept(flags: [String], environment: [String: String]) async throws {
        var machine = try FreshMachine(FreshMachine.withModel)
        let config = try machine.home.write("config.json", #"{"provider": "ollama"}"#)
        machine.environment.merge(environment.mapValues { $0 == "CONFIG" ? config : $0 }) { $1 }
        let run = await machine.trove(["index"] + flags + [try machine.notes()])
        #expect(run.status == 69, "\(run.error)")
        #expect(run.error.contains("Error: cannot reach Ollama at \(machine.ollama) — is it running? (ollama serve)"))
        #expect(!run.error.contains("note:"), "\(run.error)")
    }

    @Test(
        "an existing Ollama index whose server is down keeps today's error",
        .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason))
    func existingOllamaIndex() async throws {
        let server = try FakeOllamaServer()
        let machine = try FreshMachine(FreshMachine.withModel)
        let notes = try machine.notes()
        let built = await machine.trove(["index", notes], ["OLLAMA_HOST": server.baseURL.absoluteString])
        try #require(built.status == 0, "\(built.error)")
        try machine.home.write("notes/c.md", "# New\n\nA third note.\n")
        let run = await machine.trove(["index", notes])
        #expect(run.status == 69, "\(run.error)")
        #expect(run.error.contains("cannot reach Ollama at \(machine.ollama)"), "\(run.error)")
        #expect(!run.error.contains("built-in"), "\(run.error)")
    }

    @Test("an Ollama that answers keeps the default: the new index is Ollama's, with no note")
    func ollamaAnswers() async throws {
        let server = try FakeOllamaServer()
        let machine = try FreshMachine(["OLLAMA_HOST": server.baseURL.absoluteString])
        let run = await machine.trove(["index", try machine.notes()])
        #expect(run.status == 0, "\(run.error)")
        #expect(!run.error.contains("note:"), "\(run.error)")
        #expect(run.output.contains("with nomic-embed-text in"), "\(run.output)")
    }
}

@Suite("First contact, as a new user meets it")
struct FirstContactTests {
    @Test("the first trove index that creates the default index says where it lives; --index does not need it")
    func newDefaultIndex() async throws {
        let server = try FakeOllamaServer()
        let machine = try FreshMachine(["OLLAMA_HOST": server.baseURL.absoluteString])
        let notes = try machine.notes()
        let first = await machine.trove(["index", notes])
        #expect(first.status == 0, "\(first.error)")
        #expect(
            first.error.hasPrefix(
                "new index at \(machine.defaultIndex) (the default place; --index PATH or TROVE_INDEX chooses another)\n"),
            "\(first.error)")
        let second = await machine.trove(["index", notes])
        #expect(!second.error.contains("new index"), "\(second.error)")
        let named = await machine.trove(["index", "--index", machine.home.path + "/other.sqlite", notes])
        #expect(!named.error.contains("new index"), "\(named.error)")
    }

    @Test("trove search on a missing or empty default index names the command that fills it")
    func searchBeforeIndex() async throws {
        let machine = try FreshMachine()
        let missing = await machine.trove(["search", "basil"])
        #expect(missing.status == 1)
        #expect(missing.error == "Error: no index at \(machine.defaultIndex) — run: trove index FOLDER\n")
        // A first run that could not embed leaves an empty index: search says the same thing.
        _ = await machine.trove(["index", try machine.notes()])
        let empty = await machine.trove(["search", "basil"])
        #expect(empty.status == 1)
        #expect(empty.error == "Error: index \(machine.defaultIndex) is empty — run: trove index FOLDER\n")
    }

    @Test("trove doctor on a fresh install: every line that is not a working part ends in what to do")
    func doctorOnFreshInstall() async throws {
        let machine = try FreshMachine()
        let run = await machine.trove(["doctor"])
        #expect(run.status == 1, "\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        // sqlite, blas, index, extractors, pdf, builtin model, ollama (no confinement line: the CLI runs in process).
        #expect(lines.count == 7, "\(run.output)")
        #expect(lines.contains("ok       index: no index yet at \(machine.defaultIndex) — next: create it: trove index FOLDER"))
        #expect(
            lines.contains(
                "problem  builtin model: all-minilm-l6-v2 is not installed in \(machine.modelFolder) (missing "
                    + "model.safetensors, vocab.txt, tokenizer.json) — fix: install it: trove models install builtin"),
            "\(run.output)")
        #expect(
            lines.contains(
                "ok       ollama: no Ollama answers at \(machine.ollama): a new index uses the built-in model — next: "
                    + "to embed with Ollama instead, start it: ollama serve (or set OLLAMA_HOST / --ollama)"),
            "\(run.output)")
        let working = ["ok       sqlite:", "ok       blas:", "ok       extractors:", "ok       pdf:"]
        for line in lines where !working.contains(where: line.hasPrefix) {
            #expect(line.contains(" — next: ") || line.contains(" — fix: "), "no action: \(line)")
        }
    }

    @Test(
        "trove doctor with the model and no Ollama: all ok, a new index will use the built-in model",
        .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason))
    func doctorWithModel() async throws {
        let machine = try FreshMachine(FreshMachine.withModel)
        let run = await machine.trove(["doctor"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("ok       builtin model: all-minilm-l6-v2 in "), "\(run.output)")
        // Which arithmetic indexing uses on this CPU, and that a chosen one is named as chosen.
        #expect(run.output.contains(", auto for this CPU"), "\(run.output)")
        let chosen = await machine.trove(["doctor"], ["TROVE_EMBED_PRECISION": "fp32"])
        #expect(chosen.output.contains("; indexes in fp32, as chosen (TROVE_EMBED_PRECISION"), "\(chosen.output)")
    }
}

@Suite("trove status: freshness per folder")
struct StatusFreshnessTests {
    @Test("current, then stale with the counts and the command, in text and --json")
    func textAndJSON() async throws {
        let server = try FakeOllamaServer()
        let machine = try FreshMachine(["OLLAMA_HOST": server.baseURL.absoluteString])
        let notes = try machine.notes()
        _ = await machine.trove(["index", notes])
        let current = await machine.trove(["status"])
        #expect(current.status == 0)
        let lines = current.output.split(separator: "\n").map(String.init)
        let folderLine = try #require(lines.firstIndex(of: "  \(notes)  (2 documents)"), "\(current.output)")
        #expect(lines[folderLine + 1].hasPrefix("    up to date with the disk (last run 20"), "\(current.output)")

        try machine.home.write("notes/c.md", "# C\n\nnew\n")
        try machine.home.write("notes/a.md", "# Basil\n\nchanged text, longer than before\n")
        let stale = await machine.trove(["status"])
        #expect(stale.output.contains("    1 new, 1 changed, 0 gone since the last run (20"), "\(stale.output)")
        #expect(stale.output.contains(") — run: trove index\n"), "\(stale.output)")
        let json = await machine.trove(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let root = try #require((object?["roots"] as? [[String: Any]])?.first)
        #expect(root["new"] as? Int == 1 && root["changed"] as? Int == 1 && root["gone"] as? Int == 0)
        #expect(root["current"] as? Bool == false && root["partial"] as? Bool == false)
        #expect(root["interrupted"] as? Bool == false && root["files_left"] as? Int == 0)
        #expect((root["last_run"] as? String)?.hasSuffix("Z") == true)
    }

    @Test("a run the model server stopped (busy past its retries) is shown as interrupted until a complete run")
    func interruptedMark() async throws {
        let server = try FakeOllamaServer()
        let machine = try FreshMachine(["OLLAMA_HOST": server.baseURL.absoluteString])
        let notes = try machine.notes()
        _ = await machine.trove(["index", notes])
        try machine.home.write("notes/c.md", "# C\n\nnew\n")
        server.failNextEmbeds(1, status: 503)  // busy past its (no) retries: the run stops after its crawl
        let stopped = await machine.trove(["index", "--retries", "0"])
        #expect(stopped.status == 69, "\(stopped.error)")
        let status = await machine.trove(["status"])
        let mark = "    last run interrupted: 1 file not indexed — run: trove index\n"
        #expect(status.output.contains(mark), "\(status.output)")
        _ = await machine.trove(["index"])
        let done = await machine.trove(["status"])
        #expect(!done.output.contains("interrupted"), "\(done.output)")
        #expect(done.output.contains("up to date with the disk"), "\(done.output)")
    }
}
