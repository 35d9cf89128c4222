import Foundation
import Testing
import TroveMiniLM
import TroveTestSupport
import TroveTestTraits

/// Queries that share meaning, not words, with their answer: only a real model ranks them.
let semanticQueries: [(query: String, expected: String)] = corpusQueries.filter { $0[0] == "semantic" }.map { ($0[1], $0[2]) }

/// The installed built-in model, found the way `trove` finds it outside the tests' fake HOME.
enum BuiltinModel {
    static let folder = ModelFolder.resolve(environment: ProcessInfo.processInfo.environment)
    static let isInstalled = ModelFolder.missingFiles(in: folder).isEmpty
    // One worker thread: the other core stays free for the suites running alongside (some check timeouts).
    static let environment = [
        "TROVE_MODELS": (folder as NSString).deletingLastPathComponent, "TROVE_EMBED_THREADS": "1",
    ]
    static let skipReason: Comment = "all-minilm-l6-v2 not installed in \(folder) — run trove models install builtin"
}

@Suite("The built-in embedder, end to end", .offCooperativePool)
struct BuiltinEmbedderTests {
    /// Measured: 10 of the 12 semantic queries rank their file in the top 3; these do not. The one-on-one notes
    /// never say "promoted", and the on-call handbook and a retro outrank them. The tax question fell out of the
    /// top 3 when fusion became the convex z-score one chosen on the public sets (BENCHMARKS.md#search-relevance),
    /// where keyword matches in other documents weigh as much as meaning. The guard on these queries is nDCG@10 ≥ 0.85,
    /// below.
    static let knownMisses: Set = [
        "what did my manager say about getting promoted", "how do I get money back from the government",
    ]

    @Test(
        "Corpora indexed with --embedder builtin ranks each semantic query's file in the top 3",
        .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason))
    func semanticSearch() async throws {
        let folder = try TemporaryDirectory()
        let index = folder.path + "/index.sqlite"
        let indexed = await trove(
            ["index", "--quiet", "--embedder", "builtin", corpora], index: index, environment: BuiltinModel.environment)
        try #require(indexed.status == 0, "index failed: \(indexed.error)")
        #expect(indexed.output.contains("with all-minilm-l6-v2 in"))
        // The run's WAL is folded into the file: a copy of the file alone (a backup with cp) is the whole index.
        let copy = folder.path + "/copy.sqlite"
        try FileManager.default.copyItem(atPath: index, toPath: copy)
        let copied = await trove(["status", "--json"], index: copy, environment: BuiltinModel.environment)
        let status = try JSONSerialization.jsonObject(with: Data(copied.output.utf8)) as? [String: Any]
        #expect(status?["chunks"] as? Int == 276, "\(copied.output) \(copied.error)")
        for (query, expected) in semanticQueries {
            // No Ollama is given: search must run on the embedder the index records.
            let run = await trove(["search", "--json", "-n", "3", query], index: index, environment: BuiltinModel.environment)
            #expect(run.status == 0, "\(run.error)")
            let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            let paths = (object?["hits"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
            let found = paths.contains { $0.hasSuffix("/" + expected) || $0 == expected }
            if Self.knownMisses.contains(query) {
                withKnownIssue("all-MiniLM ranks this one outside the top 3: \(query) → \(paths)") { #expect(found) }
            } else {
                #expect(found, "\(query) → \(paths)")
            }
        }

        // The regression guard on our own labelled queries (defaults are chosen on the public sets, not here):
        // hybrid nDCG@10 over all of them, one relevant file each.
        var total = 0.0
        for (_, query, expected) in labelledQueries {
            let run = await trove(
                ["search", "--json", "-n", "10", query], index: index, environment: BuiltinModel.environment)
            let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            let paths = (object?["hits"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
            if let rank = paths.firstIndex(where: { $0.hasSuffix("/" + expected) }) {
                total += 1 / log2(Double(rank + 2))
            }
        }
        let ndcg = total / Double(labelledQueries.count)
        #expect(labelledQueries.count == 20)
        #expect(ndcg >= 0.85, "hybrid nDCG@10 on corpus-queries.tsv: \(ndcg)")

        // The offline main job: no Ollama at all, so ask answers with the passages themselves.
        let closed = try ClosedPort()
        let ask = await trove(
            ["ask", semanticQueries[0].query], index: index,
            environment: BuiltinModel.environment.merging(["OLLAMA_HOST": closed.baseURL.absoluteString]) { $1 })
        #expect(ask.status == 0, "\(ask.error)")
        #expect(ask.output.hasPrefix("Extractive answer: "), "\(ask.output)")
        #expect(ask.output.contains("\n[1] "))
        #expect(ask.error.hasPrefix("note: no chat model (cannot reach Ollama at"), "\(ask.error)")
    }

    @Test("trove embed prints one JSON line per text", .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason))
    func embedCommand() async throws {
        let run = await trove(
            ["embed", "--embedder", "builtin", "why is the sky blue?", "x"], index: "/nonexistent",
            environment: BuiltinModel.environment)
        #expect(run.status == 0)
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 2)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(first?["embedder"] as? String == "builtin")
        #expect(first?["model"] as? String == "all-minilm-l6-v2")
        #expect(first?["text"] as? String == "why is the sky blue?")
        #expect((first?["vector"] as? [Double])?.count == 384)
    }

    @Test("a missing built-in model is an error naming the install script")
    func missingModel() async {
        let run = await trove(
            ["embed", "--embedder", "builtin", "x"], index: "/nonexistent", environment: ["TROVE_MODELS": "/nonexistent"])
        #expect(run.status == 69)
        #expect(
            run.error
                == "Error: the built-in model is not installed: /nonexistent/all-minilm-l6-v2/model.safetensors "
                + "is missing — run trove models install builtin\n")
    }

    @Test("an unknown --embedder is a usage error", arguments: ["embed", "index"])
    func unknownEmbedder(command: String) async {
        let run = await trove([command, "--embedder", "tfidf", "x"], index: "/nonexistent")
        #expect(run.status == 64)
        #expect(run.error.hasPrefix("Error: --embedder expects ollama, openai or builtin, got 'tfidf'\n"), "\(run.error)")
    }

    @Test("an index built with Ollama's nomic-embed-text refuses the builtin embedder, naming both")
    func noSilentSwitch() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let index = folder.path + "/index.sqlite"
        let notes = folder.path + "/notes"
        try FileManager.default.createDirectory(atPath: notes, withIntermediateDirectories: true)
        try "# Keys\nrotate the key every month\n".write(toFile: notes + "/a.md", atomically: true, encoding: .utf8)
        let first = await trove(["index", "--quiet", notes], index: index, server: server)
        try #require(first.status == 0, "\(first.error)")
        let second = await trove(
            ["index", "--quiet", "--embedder", "builtin", notes], index: index, server: server,
            environment: ["TROVE_MODELS": "/nonexistent"])
        #expect(second.status == 1)
        #expect(
            second.error
                == "Error: index \(index) was built with ollama model 'nomic-embed-text', not builtin model "
                + "'all-minilm-l6-v2' (whose probe vector could not be made: the built-in model is not installed: "
                + "/nonexistent/all-minilm-l6-v2/model.safetensors is missing — run trove models install builtin) — use "
                + "--provider ollama --model nomic-embed-text, or --index NEW.sqlite for a new index\n")
    }
}
