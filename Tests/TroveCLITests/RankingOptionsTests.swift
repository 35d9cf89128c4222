import Foundation
import Testing
import TroveTestSupport

/// `Tests/Fixtures/cjk-queries.tsv`: a query and the note of `Tests/Fixtures/cjk-notes` it must find.
private let cjkQueryTable: [(query: String, expected: String)] = {
    let table = try? String(contentsOfFile: repositoryRoot + "/Tests/Fixtures/cjk-queries.tsv", encoding: .utf8)
    return (table ?? "").split(separator: "\n").map { line in
        let fields = line.split(separator: "\t").map(String.init)
        return (fields[0], fields[1])
    }
}()

private func hits(_ run: Invocation) throws -> [[String: Any]] {
    let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
    return object?["hits"] as? [[String: Any]] ?? []
}

@Suite("Search in Chinese, Japanese and Korean notes, and the ranking options")
struct RankingOptionsTests {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory
    var index: String { folder.path + "/index.sqlite" }

    init() throws {
        server = try rankingServer()
        folder = try TemporaryDirectory()
    }

    private func indexNotes() async throws {
        let run = await trove(["index", repositoryRoot + "/Tests/Fixtures/cjk-notes"], index: index, server: server)
        try #require(run.status == 0, "index failed: \(run.error)")
    }

    @Test("keyword mode finds each query's note first; hybrid has it with its keyword and vector scores")
    func cjkQueries() async throws {
        try await indexNotes()
        #expect(cjkQueryTable.count == 20)
        for (query, expected) in cjkQueryTable {
            let keyword = await trove(
                ["search", "--cold", "--mode", "keyword", "--json", "-n", "1", query], index: index)
            #expect(keyword.status == 0, "\(keyword.error)")
            let first = try hits(keyword).first?["path"] as? String
            #expect(first?.hasSuffix("/" + expected) == true, "\(query) → \(first ?? "nothing")")

            let hybrid = await trove(["search", "--cold", "--json", "-n", "10", query], index: index, server: server)
            let found = try hits(hybrid).first { ($0["path"] as? String)?.hasSuffix("/" + expected) == true }
            #expect((found?["keyword_score"] as? Double ?? 0) > 0, "\(query): \(hybrid.output)")
        }
    }

    @Test("every hybrid hit in --json carries vector_score and keyword_score, 0 where no word matches")
    func hybridScores() async throws {
        try await indexNotes()
        let run = await trove(["search", "--cold", "--json", "green tea"], index: index, server: server)
        let all = try hits(run)
        #expect(all.count == 10)
        #expect(all.allSatisfy { $0["vector_score"] is Double && $0["keyword_score"] is Double })
        #expect(all.contains { $0["keyword_score"] as? Double == 0 })
        #expect(
            (all.first { ($0["path"] as? String)?.hasSuffix("/en/tea.md") == true }?["keyword_score"] as? Double ?? 0)
                > 0)
        // Ranks and the fused score stay --explain's.
        #expect(all.allSatisfy { $0["fused_score"] == nil && $0["keyword_rank"] == nil })
    }

    @Test("--explain names the ranking's method and parameters; the options change them")
    func explainShowsParameters() async throws {
        try await indexNotes()
        let defaults = await trove(["search", "--cold", "--explain", "-n", "1", "tea"], index: index, server: server)
        #expect(defaults.status == 0, "\(defaults.error)")
        #expect(defaults.output.hasPrefix("ranking: hybrid, "), "\(defaults.output)")
        let chosen = await trove(
            [
                "search", "--cold", "--explain", "-n", "1", "--fusion", "convex", "--normalization", "zscore",
                "--keyword-weight", "0.3", "--depth", "50", "--scale-depth", "30", "--bm25-k1", "0.9", "--bm25-b",
                "0.4", "--heading-weight", "2", "tea",
            ], index: index, server: server)
        #expect(chosen.status == 0, "\(chosen.error)")
        #expect(
            chosen.output.hasPrefix(
                "ranking: hybrid, convex, zscore normalisation, keyword weight 0.3, depth 50, scale from the best 30, "
                    + "BM25 k1 0.9, b 0.4, heading 2\n"
            ),
            "\(chosen.output)")
        let json = await trove(
            ["search", "--cold", "--json", "--explain", "--mode", "keyword", "--bm25-b", "0", "tea"], index: index)
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect((object?["ranking"] as? String)?.hasPrefix("ranking: keyword, BM25 k1 ") == true)
        #expect((object?["ranking"] as? String)?.hasSuffix(", b 0, heading 1") == true)
    }

    @Test(
        "bad ranking options are usage errors that say what is expected",
        arguments: [
            (["--fusion", "sum"], "Error: --fusion expects rrf or convex, got 'sum'"),
            (["--normalization", "l2"], "Error: --normalization expects minmax or zscore, got 'l2'"),
            (["--keyword-weight", "-1"], "Error: --keyword-weight expects a number of at least 0, got '-1'"),
            (["--rrf-constant", "nan"], "Error: --rrf-constant expects a number of at least 0, got 'nan'"),
            (["--bm25-b", "1.5"], "Error: --bm25-b expects a number from 0 to 1, got '1.5'"),
            (["--depth", "0"], "Error: --depth expects a whole number of at least 1, got '0'"),
            (["--scale-depth", "0"], "Error: --scale-depth expects a whole number of at least 1, got '0'"),
        ])
    func badOptions(arguments: [String], message: String) async throws {
        let run = await trove(["search"] + arguments + ["tea"], index: index, server: server)
        #expect(run.status == 64)
        #expect(run.error.hasPrefix(message), "\(run.error)")
    }
}
