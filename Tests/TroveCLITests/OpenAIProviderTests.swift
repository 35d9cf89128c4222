import Foundation
import Testing
import TroveTestSupport

/// `--provider openai` against llama.cpp's own server (../shared/tools/llamacpp) serving all-MiniLM-L6-v2: the same
/// weights as the built-in embedder, so the two indexes must agree.
@Suite(
    "The openai provider against llama.cpp's server",
    .enabled(if: LlamaCppServer.unavailable == nil, "\(LlamaCppServer.unavailable ?? "")"),
    .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason), .serialized)
struct OpenAIProviderTests {
    func hits(_ run: Invocation) throws -> [(path: String, score: Double)] {
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        return (object?["hits"] as? [[String: Any]] ?? []).map {
            ($0["path"] as? String ?? "", $0["score"] as? Double ?? .nan)
        }
    }

    @Test("Corpora/engineering indexed through llama.cpp searches like the built-in embedder's index, and each refreshes the other's")
    func indexAndSearchAgreeWithBuiltin() async throws {
        let server = try await LlamaCppServer(.embed)
        let folder = try TemporaryDirectory()
        let viaServer = folder.path + "/openai.sqlite"
        let builtin = folder.path + "/builtin.sqlite"
        // One folder of Corpora (a third of it) keeps the run short; its queries still tell rankings apart.
        let engineering = corpora + "/engineering"
        // The built-in index in fp32, as llama.cpp computes: bf16 (the default on a CPU with AVX-512 BF16) moves hybrid
        // scores by up to ~0.003 (its bounds are ReducedPrecisionTests' and BENCHMARKS.md#reduced-precision).
        let environment = BuiltinModel.environment.merging(
            ["OPENAI_BASE_URL": server.baseURL.absoluteString, "TROVE_EMBED_PRECISION": "fp32"]) { $1 }
        let indexed = await trove(
            ["index", "--quiet", "--provider", "openai", "--model", "all-minilm", engineering], index: viaServer,
            environment: environment)
        try #require(indexed.status == 0, "index failed: \(indexed.error)")
        #expect(indexed.output.contains("with all-minilm in"), "\(indexed.output)")
        let reference = await trove(
            ["index", "--quiet", "--provider", "builtin", engineering], index: builtin, environment: environment)
        try #require(reference.status == 0, "\(reference.error)")

        // The same chunks embedded by both: the same ranking, the same cosines.
        let queries = semanticQueries.filter { $0.expected.hasPrefix("engineering/") }
        try #require(queries.count >= 3)
        for (query, expected) in queries {
            let ours = try hits(await trove(["search", "--json", "-n", "3", query], index: viaServer, environment: environment))
            let theirs = try hits(await trove(["search", "--json", "-n", "3", query], index: builtin, environment: environment))
            #expect(ours.map(\.path) == theirs.map(\.path), "\(query)")
            for (a, b) in zip(ours, theirs) { #expect(abs(a.score - b.score) < 0.002, "\(query): \(a) vs \(b)") }
            #expect(ours.contains { $0.path.hasSuffix(expected) } || query.contains("promoted"), "\(query) → \(ours)")
        }

        // The probe vectors agree, so the built-in index takes llama.cpp's vectors (and the other way round).
        let notes = try folder.write("more/bastion.md", "# Bastion\n\nReach the ops hosts through the bastion with ssh -J.\n")
        let refreshed = await trove(
            ["index", "--quiet", "--provider", "openai", "--model", "all-minilm", (notes as NSString).deletingLastPathComponent],
            index: builtin, environment: environment)
        #expect(refreshed.status == 0, "\(refreshed.error)")
        let back = await trove(
            ["index", "--quiet", "--provider", "builtin", (notes as NSString).deletingLastPathComponent], index: viaServer,
            environment: environment)
        #expect(back.status == 0, "\(back.error)")
        let found = try hits(await trove(["search", "--json", "-n", "3", "reach the ops hosts through the bastion with ssh -J"], index: builtin, environment: environment))
        #expect(found.contains { $0.path.hasSuffix("more/bastion.md") }, "\(found)")

        // And vector by vector, through `trove embed`.
        let texts = ["how do I rotate the SSH keys?", "a sourdough starter needs feeding", "quarterly planning notes"]
        func vectors(_ provider: String) async throws -> [[Double]] {
            let run = await trove(["embed", "--provider", provider, "--model", provider == "openai" ? "all-minilm" : "all-minilm-l6-v2"] + texts, index: "/nonexistent", environment: environment)
            try #require(run.status == 0, "\(run.error)")
            return try run.output.split(separator: "\n").map {
                try #require((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["vector"] as? [Double])
            }
        }
        let a = try await vectors("openai")
        let b = try await vectors("builtin")
        for (x, y) in zip(a, b) {
            let cosine = zip(x, y).map(*).reduce(0, +)
            #expect(cosine >= 0.999, "cosine \(cosine)")
        }
    }

    @Test("a wrong key is a clear error and exit 69; the key is not printed")
    func wrongKey() async throws {
        let server = try await LlamaCppServer(.embed, apiKey: "the-right-key")
        let folder = try TemporaryDirectory()
        let run = await trove(
            ["index", "--quiet", "--provider", "openai", "--model", "all-minilm", corpora], index: folder.path + "/i.sqlite",
            environment: ["OPENAI_BASE_URL": server.baseURL.absoluteString, "OPENAI_API_KEY": "a-wrong-key"])
        #expect(run.status == 69, "\(run.error)")
        #expect(run.error.contains("refused the API key") && run.error.contains("OPENAI_API_KEY"), "\(run.error)")
        #expect(!run.error.contains("a-wrong-key") && !run.output.contains("a-wrong-key"))
    }

    @Test("--provider openai without a server is a usage error")
    func noBaseURL() async {
        let run = await trove(["embed", "--provider", "openai", "--model", "m", "x"], index: "/nonexistent")
        #expect(run.status == 64)
        #expect(run.error.contains("--base-url"), "\(run.error)")
    }
}
