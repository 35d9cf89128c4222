import Foundation
import Testing
import TroveTestSupport

/// Queries that share distinctive words with their answer, so the fake server's bag-of-words vectors rank them.
let keywordQueries: [(query: String, expected: String)] = corpusQueries.filter { $0[0] == "keyword" }.map { ($0[1], $0[2]) }

@Suite("Index and search the sample corpus through a fake Ollama", .serialized)
struct IndexAndSearchTests {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory
    var index: String { folder.path + "/index.sqlite" }

    init() throws {
        server = try rankingServer()
        folder = try TemporaryDirectory()
    }

    private func indexCorpora() async throws {
        let run = await trove(["index", corpora], index: index, server: server)
        try #require(run.status == 0, "index failed: \(run.error)")
    }

    @Test("indexing Corpora reports every document as new and embeds its chunks")
    func indexReportsSummary() async throws {
        let run = await trove(["index", "--json", corpora], index: index, server: server)
        #expect(run.status == 0)
        let summary = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let files = try FileManager.default.subpathsOfDirectory(atPath: corpora).filter { $0.contains(".") }
        #expect((summary?["new"] as? Int ?? 0) >= 30)
        #expect((summary?["new"] as? Int ?? 0) <= files.count)
        // Every chunk, plus the probe text a new index records in its fingerprint.
        #expect((summary?["chunks_embedded"] as? Int ?? 0) + 1 == server.embeddedInputCount)
        #expect(run.error.contains("indexing \(corpora):"))
    }

    @Test("a chosen query finds its expected file first, in text output", arguments: keywordQueries)
    func textSearch(query: String, expected: String) async throws {
        try await indexCorpora()
        let run = await trove(["search", query], index: index, server: server)
        #expect(run.status == 0)
        let first = run.output.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix(displayed(corpora + "/" + expected) + ":"), "\(query) → \(first)")
    }

    @Test("a chosen query finds its expected file first, in JSON output", arguments: keywordQueries)
    func jsonSearch(query: String, expected: String) async throws {
        try await indexCorpora()
        let run = await trove(["search", "--json", "-n", "3", query], index: index, server: server)
        #expect(run.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["query"] as? String == query)
        #expect(object["model"] as? String == "nomic-embed-text")
        let hits = try #require(object["hits"] as? [[String: Any]])
        #expect(hits.count == 3)
        #expect(hits.first?["path"] as? String == corpora + "/" + expected)
        #expect(hits.map { $0["rank"] as? Int } == [1, 2, 3])
        let scores = hits.compactMap { $0["score"] as? Double }
        #expect(scores == scores.sorted(by: >))
        for hit in hits {
            let start = try #require(hit["start_line"] as? Int)
            let end = try #require(hit["end_line"] as? Int)
            #expect(start >= 1 && end >= start)
            #expect(!(hit["text"] as? String ?? "").isEmpty)
        }
    }

    @Test("rerunning over an unchanged folder embeds nothing; edits and deletions are picked up")
    func incrementalRerun() async throws {
        let notes = try TemporaryDirectory()
        try notes.write("a.md", "# Alpha\n\nThe alpha note talks about kayaks.\n")
        try notes.write("b.md", "# Beta\n\nThe beta note talks about bicycles.\n")
        try notes.write("c.txt", "gamma is about gardening\n")
        let first = await trove(["index", notes.path], index: index, server: server)
        #expect(first.output.hasPrefix("3 new, 0 changed, 0 unchanged, 0 removed, 0 skipped; 3 chunks embedded"))

        let before = server.embeddedInputCount
        let again = await trove(["index"], index: index, server: server)
        #expect(again.status == 0)
        #expect(again.output.hasPrefix("0 new, 0 changed, 3 unchanged, 0 removed, 0 skipped; 0 chunks embedded"))
        #expect(server.embeddedInputCount == before)

        try notes.write("a.md", "# Alpha\n\nThe alpha note now talks about canoes.\n")
        try FileManager.default.removeItem(atPath: notes.path + "/c.txt")
        let edited = await trove(["index", notes.path], index: index, server: server)
        #expect(edited.output.hasPrefix("0 new, 1 changed, 1 unchanged, 1 removed, 0 skipped; 1 chunks embedded"))
        let search = await trove(["search", "--json", "gardening"], index: index, server: server)
        #expect(!search.output.contains("c.txt"))
    }

    @Test("status shows the folder, counts and model")
    func status() async throws {
        try await indexCorpora()
        let run = await trove(["status"], index: index, server: server)
        #expect(run.status == 0)
        #expect(run.output.contains("model      nomic-embed-text (ollama, 1024 dimensions"))
        #expect(run.output.contains("  \(corpora)  ("))
        let json = await trove(["status", "--json"], index: index, server: server)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["dimension"] as? Int == 1024)
        #expect((object["documents"] as? Int ?? 0) >= 30)
        #expect((object["bytes_on_disk"] as? Int ?? 0) > 0)
    }

    @Test("searching with a different --model is refused, naming both models")
    func differentModelRefused() async throws {
        try await indexCorpora()
        let run = await trove(["search", "--model", "all-minilm", "keys"], index: index, server: server)
        #expect(run.status == 1)
        #expect(
            run.error
                == "Error: index \(index) was built with 'nomic-embed-text', not 'all-minilm' — drop --model to search it, or index with 'all-minilm' into another --index\n"
        )
    }

    @Test("indexing with a different model than the index's is refused")
    func indexDifferentModelRefused() async throws {
        try await indexCorpora()
        let run = await trove(["index", "--model", "all-minilm", corpora], index: index, server: server)
        #expect(run.status != 0)
        #expect(run.error.contains("was built with ollama model 'nomic-embed-text', not ollama model 'all-minilm'"))
    }

    @Test("an index with no documents is refused with a hint")
    func emptyIndexRefused() async throws {
        let empty = try TemporaryDirectory()
        _ = await trove(["index", empty.path], index: index, server: server)
        let run = await trove(["search", "anything"], index: index, server: server)
        #expect(run.status == 1)
        #expect(run.error == "Error: index \(index) is empty — run: trove index FOLDER\n")
    }
}

@Suite("Failures a user meets while indexing")
struct IndexFailureTests {
    @Test("the Ollama chosen is not running: exit 69 and say how to start it")
    func ollamaDown() async throws {
        let closed = try ClosedPort()
        let url = closed.baseURL.absoluteString
        let folder = try TemporaryDirectory()
        try folder.write("notes/a.md", "# A\n\ntext\n")
        let run = await trove(
            ["index", "--embedder", "ollama", folder.path + "/notes"], index: folder.path + "/i.sqlite",
            environment: ["OLLAMA_HOST": closed.baseURL.absoluteString])
        #expect(run.status == 69)
        #expect(run.error.contains("cannot reach Ollama at \(url)"))
        #expect(run.error.contains("is it running? (ollama serve)"))
    }

    @Test("a model that is not pulled: exit 69 with the pull command")
    func modelMissing() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        try folder.write("notes/a.md", "# A\n\ntext\n")
        let run = await trove(
            ["index", "--model", "mxbai-embed-large", folder.path + "/notes"], index: folder.path + "/i.sqlite",
            server: server)
        #expect(run.status == 69)
        #expect(run.error == "Error: model 'mxbai-embed-large' is not pulled — run: ollama pull mxbai-embed-large\n")
    }

    @Test("a server returning vectors of the wrong length is caught, naming both lengths")
    func wrongDimension() async throws {
        let server = try FakeOllamaServer()
        server.fault = .wrongDimension
        let folder = try TemporaryDirectory()
        try folder.write("notes/a.md", "# A\n\ntext\n")
        let run = await trove(["index", folder.path + "/notes"], index: folder.path + "/i.sqlite", server: server)
        #expect(run.status == 1)
        #expect(run.error.contains("expected 64, got 65"))
    }

    @Test("binary and oversized files are reported, a Latin-1 file is read as such, and the rest is indexed")
    func messyFolder() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        try folder.write("notes/good.md", "# Good\n\nplain words\n")
        try folder.write("notes/blob.txt", data: Data([0x41, 0x00, 0x42, 0x43]))
        try folder.write("notes/huge.md", String(repeating: "big words here\n", count: 2000))
        try folder.write("notes/latin1.txt", data: Data([0x63, 0x61, 0x66, 0xE9, 0x0A]))
        let run = await trove(
            ["index", "-v", "--max-file-size", "10k", folder.path + "/notes"], index: folder.path + "/i.sqlite",
            server: server)
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("2 new, 0 changed, 0 unchanged, 0 removed, 2 skipped"))
        #expect(run.error.contains("blob.txt: binary file"))
        #expect(run.error.contains("huge.md"))
        // Not mangled into U+FFFD: read in the legacy encoding uchardet detects, which -v names.
        #expect(!run.error.contains("U+FFFD"))
        #expect(run.error.contains("latin1.txt: read as ISO-8859-"))
    }
}

@Suite("Defaults from the configuration file")
struct ConfiguredDefaultsTests {
    @Test("search_limit in the config file sets how many results search prints; -n still wins")
    func searchLimit() async throws {
        let server = try rankingServer()
        let folder = try TemporaryDirectory()
        let index = folder.path + "/i.sqlite"
        let config = try folder.write("config.json", #"{"search_limit": 2}"#)
        let indexed = await trove(["index", corpora], index: index, server: server)
        try #require(indexed.status == 0)
        let environment = ["TROVE_CONFIG": config]
        let configured = await trove(
            ["search", "--json", "--cold", "sourdough starter"], index: index, server: server, environment: environment)
        let hits = (try JSONSerialization.jsonObject(with: Data(configured.output.utf8)) as? [String: Any])?["hits"]
        #expect((hits as? [Any])?.count == 2)
        let flagged = await trove(
            ["search", "--json", "--cold", "-n", "4", "sourdough starter"], index: index, server: server,
            environment: environment)
        let more = (try JSONSerialization.jsonObject(with: Data(flagged.output.utf8)) as? [String: Any])?["hits"]
        #expect((more as? [Any])?.count == 4)
    }
}
