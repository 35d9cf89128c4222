import Foundation
import Testing
import TroveCLI
import TroveTestSupport

/// Runs `trove` in-process with stdout looking like a terminal (or not), for colour checks.
func troveAtTerminal(_ arguments: [String], index: String, server: FakeOllamaServer, environment: [String: String])
    async -> Invocation
{
    var env = ["HOME": NSTemporaryDirectory(), "TROVE_INDEX": index, "OLLAMA_HOST": server.baseURL.absoluteString]
    env.merge(environment) { $1 }
    let output = CapturedStream(isTerminal: true)
    let error = CapturedStream()
    let status = await Launcher.run(arguments, console: Console(output: output, error: error, environment: env))
    return Invocation(status: status, output: output.text, error: error.text)
}

@Suite("Search modes, filters and output formats", .serialized)
struct SearchOptionsTests {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory
    var index: String { folder.path + "/index.sqlite" }

    init() async throws {
        server = try rankingServer()
        folder = try TemporaryDirectory()
        let run = await trove(["index", corpora], index: folder.path + "/index.sqlite", server: server)
        try #require(run.status == 0, "index failed: \(run.error)")
    }

    private func jsonHits(_ arguments: [String]) async throws -> [[String: Any]] {
        let run = await trove(["search", "--json"] + arguments, index: index, server: server)
        try #require(run.status == 0, "\(arguments): \(run.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        return try #require(object["hits"] as? [[String: Any]])
    }

    @Test("the labelled keyword queries find their file first in every mode", arguments: ["hybrid", "vector", "keyword"])
    func labelledQueries(mode: String) async throws {
        for (query, expected) in keywordQueries {
            let hits = try await jsonHits(["--mode", mode, "-n", "3", query])
            #expect(hits.first?["path"] as? String == corpora + "/" + expected, "\(mode) \(query)")
        }
    }

    @Test("results are one per document unless --all-chunks")
    func grouping() async throws {
        let grouped = try await jsonHits(["-n", "10", "deploy keys rotation database backup"]).map { $0["path"] as? String }
        #expect(grouped.count == 10)
        #expect(Set(grouped).count == grouped.count)
        let all = try await jsonHits(["--all-chunks", "-n", "30", "deploy keys rotation database backup"])
            .map { $0["path"] as? String }
        #expect(all.count == 30)
        #expect(Set(all).count < all.count)
    }

    @Test("filters restrict the candidates before ranking, so matching documents always fill the list")
    func filtersBeforeRanking() async throws {
        // The sourdough query's best matches are recipes; under howto/ only weaker matches exist, yet they are found.
        let howto = try await jsonHits(["--path", "howto", "-n", "5", "sourdough starter levain hydration"])
        #expect(howto.count == 5)
        #expect(howto.allSatisfy { ($0["path"] as? String ?? "").hasPrefix(corpora + "/howto/") })
        let rst = try await jsonHits(["--ext", "rst", "sourdough starter"])
        #expect(rst.map { $0["path"] as? String } == [corpora + "/howto/python-venv.rst"])
        let globbed = try await jsonHits(["--path", "*.txt", "--path", "**/retros/*", "-n", "50", "meeting notes"])
        #expect(!globbed.isEmpty)
        #expect(
            globbed.allSatisfy {
                let path = $0["path"] as? String ?? ""
                return path.hasSuffix(".txt") || path.contains("/retros/")
            })
        let rooted = try await jsonHits(["--root", "Corpora", "--mode", "keyword", "ssh ProxyJump"])
        #expect(rooted.first?["path"] as? String == corpora + "/howto/ssh-config.md")
    }

    @Test("a filter no document matches says so; an unknown --root is a usage error naming the indexed folders")
    func emptyFilters() async throws {
        let future = await trove(["search", "--since", "2999-01-01", "keys"], index: index, server: server)
        #expect(future.status == 0)
        #expect(future.output.isEmpty)
        #expect(future.error == "no indexed document matches the filters\n")
        let root = await trove(["search", "--root", "elsewhere", "keys"], index: index, server: server)
        #expect(root.status == 64)
        #expect(root.error.hasPrefix("Error: no indexed folder is called 'elsewhere' — indexed: \(corpora)\n"))
        let old = try await jsonHits(["--before", "2999-01-01", "--since", "30000d", "-n", "3", "keys"])
        #expect(old.count == 3)
    }

    @Test("-l prints each matching document's path once, best first")
    func files() async throws {
        let run = await trove(["search", "-l", "--all-chunks", "-n", "20", "git rebase"], index: index, server: server)
        #expect(run.status == 0)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first == displayed(corpora + "/howto/git-tricks.md"))
        #expect(Set(lines).count == lines.count)
        #expect(!lines.contains { $0.contains(":") || $0.contains(" ") })
    }

    @Test("--jsonl prints one hit per line; --explain adds the vector, keyword and fused scores")
    func jsonLinesAndExplain() async throws {
        let run = await trove(
            ["search", "--jsonl", "--explain", "-n", "4", "Redis cache TTL"], index: index, server: server)
        #expect(run.status == 0)
        let hitLines = run.output.split(separator: "\n")
        #expect(hitLines.count == 4)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(hitLines[0].utf8)) as? [String: Any])
        #expect(first["path"] as? String == corpora + "/engineering/caching-design.md")
        #expect(first["rank"] as? Int == 1)
        #expect(first["vector_score"] is Double)
        #expect(first["keyword_score"] is Double)
        #expect(first["keyword_rank"] is Int)
        #expect(abs((first["fused_score"] as? Double ?? 0) - (first["score"] as? Double ?? 1)) < 1e-6)

        let text = await trove(["search", "--explain", "-n", "1", "Redis cache TTL"], index: index, server: server)
        let lines = text.output.split(separator: "\n")
        #expect(lines[0].hasPrefix("ranking: hybrid, "))
        let explanation = lines[2]
        #expect(explanation.hasPrefix("    vector 0."))
        #expect(explanation.contains("  keyword ") && explanation.contains("  fused "))
    }

    @Test("query words are bold at a terminal, and plain with NO_COLOR or when piped")
    func highlighting() async throws {
        let colour = await troveAtTerminal(["search", "-n", "1", "sourdough starter"], index: index, server: server, environment: [:])
        #expect(colour.output.contains("\u{1B}[1mstarter\u{1B}[0m"), "\(colour.output)")
        let plain = await troveAtTerminal(
            ["search", "-n", "1", "sourdough starter"], index: index, server: server, environment: ["NO_COLOR": "1"])
        #expect(!plain.output.contains("\u{1B}["))
        let piped = await trove(["search", "-n", "1", "sourdough starter"], index: index, server: server)
        #expect(!piped.output.contains("\u{1B}["))
        let forced = await trove(
            ["search", "-n", "1", "sourdough starter"], index: index, server: server,
            environment: ["CLICOLOR_FORCE": "1"])
        #expect(forced.output.contains("\u{1B}[1mstarter\u{1B}[0m"))
        for environment in [["CLICOLOR_FORCE": "0"], ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"]] {
            let run = await trove(
                ["search", "-n", "1", "sourdough starter"], index: index, server: server, environment: environment)
            #expect(!run.output.contains("\u{1B}["), "\(environment)")
        }
    }

    @Test("-l -0 ends each path with NUL, so a file name holding a newline reaches xargs -0 whole")
    func nullTerminatedFiles() async throws {
        let notes = try TemporaryDirectory()
        _ = try notes.write("plain.md", "# Kayaks\n\nThe kayak paddle feathering angle.\n")
        _ = try notes.write("two\nlines.md", "# Kayak racks\n\nA kayak roof rack and its paddle clips.\n")
        let index = notes.path + "/i.sqlite"
        let indexed = await trove(["index", notes.path], index: index, server: server)
        try #require(indexed.status == 0, "\(indexed.error)")
        let run = await trove(["search", "-l0", "kayak paddle"], index: index, server: server)
        #expect(run.status == 0)
        let paths = run.output.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
        #expect(paths.last == "")
        #expect(Set(paths.dropLast()) == [displayed(notes.path + "/plain.md"), displayed(notes.path + "/two\nlines.md")])
    }

    @Test("--int8 and --exact rank this small index as the default does: the int8 scan's scores are exact", arguments: [
        "hybrid", "vector",
    ])
    func scanFlags(mode: String) async throws {
        let query = ["--mode", mode, "-n", "8", "--path", "engineering", "deploy keys rotation database backup"]
        let automatic = try await jsonHits(query)
        #expect(!automatic.isEmpty)
        for flag in ["--int8", "--exact"] {
            let hits = try await jsonHits([flag] + query)
            #expect(hits.map { $0["path"] as? String } == automatic.map { $0["path"] as? String }, "\(flag)")
            #expect(hits.map { $0["score"] as? Double } == automatic.map { $0["score"] as? Double }, "\(flag)")
        }
    }

    @Test("keyword mode needs no Ollama, and no text breaks the FTS5 query syntax")
    func keywordWithoutOllama() async throws {
        let offline = ["OLLAMA_HOST": "http://127.0.0.1:9"]
        for query in ["ssh ProxyJump", "\"unbalanced", "AND OR NOT", "NEAR(a b", "col:umn *", "-(x)^", "'; DROP"] {
            let run = await trove(["search", "--mode", "keyword", "--", query], index: index, environment: offline)
            #expect(run.status == 0, "\(query): \(run.error)")
        }
        let none = await trove(["search", "--mode", "keyword", "zzqx"], index: index, environment: offline)
        #expect(none.error == "no passage contains a word of the query — try --mode hybrid or vector\n")
    }

    @Test(
        "search usage mistakes print one line that says what to do",
        arguments: [
            (["--mode", "fuzzy", "x"], "Error: --mode expects hybrid, vector or keyword, got 'fuzzy'"),
            (["--json", "--jsonl", "x"], "Error: choose one of -l/--files, --json and --jsonl"),
            (["--mode", "keyword", "--min-score", "0.3", "x"],
             "Error: --min-score is a cosine similarity: use it with --mode hybrid or vector"),
            (["--since", "yesterday", "x"],
             "Error: --since expects a date like 2024-05-01 or 2024-05-01T09:30, or an age like 7d, got 'yesterday'"),
            (["--int8", "--exact", "x"], "Error: choose one of --int8 and --exact"),
        ])
    func usage(arguments: [String], message: String) async {
        let run = await trove(["search"] + arguments, index: index, server: server)
        #expect(run.status == 64)
        #expect(run.error.hasPrefix(message + "\n"))
    }
}
