import Foundation
import Testing
import TroveTestSupport

@testable import TroveStore

/// The CLI against a PostgreSQL index: the same commands and output, only the location differs.
@Suite(
    "trove with a postgresql:// index", .serialized,
    .enabled(if: PostgresServer.unavailable == nil, "\(PostgresServer.unavailable ?? "")"))
struct PostgresCommandTests {
    @Test("index, search, status, forget and vacuum work with a URL; status never shows the password")
    func commands() async throws {
        let server = try FakeOllamaServer()
        let fresh = try await PostgresServer.freshURL()
        // Trust authentication ignores the password: it is there to be hidden.
        let url = fresh.replacingOccurrences(of: "postgres@", with: "postgres:hunter2@")
        let indexed = await trove(["index", corpora], index: url, server: server)
        #expect(indexed.status == 0, "\(indexed.error)")
        #expect(indexed.output.hasPrefix("38 new, 0 changed, 0 unchanged, 0 removed, 0 skipped; "))
        let search = await trove(["search", "--json", "-n", "1", "stripe secret key rotate"], index: url, server: server)
        #expect(search.status == 0, "\(search.error)")
        #expect(search.output.contains("engineering/deploy.md"))
        let status = await trove(["status"], index: url, server: server)
        #expect(status.status == 0)
        #expect(status.output.hasPrefix("index      " + fresh + " ("))
        #expect(!status.output.contains("hunter2") && !status.error.contains("hunter2"))
        let forget = await trove(["forget", corpora], index: url, server: server)
        #expect(forget.status == 0, "\(forget.error)")
        #expect(await trove(["vacuum"], index: url, server: server).status == 0)
        #expect(try IndexLocation(url).open(createIfMissing: false).statistics().documents == 0)
    }

    @Test("a failed HNSW build is one stderr line saying what to do, the run still succeeds, and status shows it")
    func failedHNSWBuild() async throws {
        // pgvector's HNSW indexes at most 2,000 dimensions: a forced build over 2,048 fails in the server.
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text", dimension: 2048)])
        let url = try await PostgresServer.freshURL("&hnsw=on")
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(3, in: folder)
        let indexed = await trove(["index", notes], index: url, server: server)
        #expect(indexed.status == 0, "\(indexed.error)")
        let lines = indexed.error.split(separator: "\n").filter { $0.contains("HNSW") }
        #expect(lines.count == 1, "\(indexed.error)")
        #expect(lines.first?.hasPrefix("warning: the HNSW index over 9 vectors was not built (PostgreSQL failed on ") == true, "\(indexed.error)")
        #expect(lines.first?.contains("searches stay exact, and slower; fix the cause") == true)
        #expect(lines.first?.contains("and run trove index again") == true)
        let status = await trove(["status"], index: url, server: server)
        #expect(
            status.output.contains(
                "vectors    9, ranked exactly: the HNSW index is missing — its last build failed or was interrupted; "
                    + "run trove index to build it\n"), "\(status.output)")
        let json = await trove(["status", "--json"], index: url, server: server)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let ann = try #require(object["ann_index"] as? [String: Any])
        #expect(ann["wanted"] as? Bool == true && ann["built"] as? Bool == false && ann["policy"] as? String == "on")
        // Searches still answer, exactly.
        #expect(await trove(["search", "note"], index: url, server: server).status == 0)
    }

    @Test("status says how vectors are ranked: exactly below the threshold, through HNSW once built; SQLite says nothing")
    func statusRanking() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(3, in: folder)
        for (options, line) in [
            ("", "vectors    9, ranked exactly (an HNSW index is built from 20000 vectors)\n"),
            ("&hnsw=on", "vectors    9, ranked through the HNSW index (hnsw=on)\n"),
        ] {
            let url = try await PostgresServer.freshURL(options)
            #expect(await trove(["index", notes], index: url, server: server).status == 0)
            let status = await trove(["status"], index: url, server: server)
            #expect(status.output.contains(line), "\(status.output)")
        }
        let file = folder.path + "/i.sqlite"
        _ = await trove(["index", notes], index: file, server: server)
        #expect(!(await trove(["status"], index: file, server: server)).output.contains("vectors "))
    }

    @Test("trove serve answers for a URL on a socket in /tmp, reloads after a commit, and removes the socket on SIGTERM")
    func serve() async throws {
        let ollama = try FakeOllamaServer()
        // Trust authentication ignores the password: it is there to be hidden.
        let url = try await PostgresServer.freshURL().replacingOccurrences(of: "postgres@", with: "postgres:hunter2@")
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(3, in: folder)
        #expect(await trove(["index", notes], index: url, server: ollama).status == 0)
        let cold = await trove(["search", "--json", "--cold", "lighthouse keeper"], index: url, server: ollama)
        #expect(cold.status == 0, "\(cold.error)")

        let server = try ServeProcess(
            environment: ["OLLAMA_HOST": ollama.baseURL.absoluteString, "TROVE_INDEX": url], folder: folder)
        defer { server.stop() }
        let path = try #require(await server.socket(), "no socket: \(server.log)")
        #expect(path.hasPrefix("/tmp/trove-\(getuid())-"))
        #expect(!server.log.contains("hunter2"), "\(server.log)")

        let warm = await trove(["search", "--json", "lighthouse keeper"], index: url, server: ollama)
        #expect(warm.status == 0, "\(warm.error)")
        func paths(_ output: String) throws -> [String] {
            let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            return (object?["hits"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        }
        #expect(try paths(warm.output) == paths(cold.output))

        // A commit by another process is seen by the next search through the server.
        _ = try folder.write("notes/kayak.md", "# Kayak\n\nFeathering the paddle blades cuts the wind.\n")
        #expect(await trove(["index", notes], index: url, server: ollama).status == 0)
        let after = await trove(["search", "-l", "-n", "1", "kayak paddle feathering"], index: url, server: ollama)
        #expect(after.output == notes + "/kayak.md\n", "\(after.output) \(after.error)")
        #expect(server.log.contains("the index changed: reloading"), "\(server.log)")

        server.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("an unreachable server exits 69 with one line that names it without the password")
    func unreachable() async throws {
        let port = try ClosedPort()
        let run = await trove(["search", "x"], index: "postgresql://u:hunter2@127.0.0.1:\(port.port)/db")
        #expect(run.status == 69)
        #expect(run.error.hasPrefix("Error: could not connect to postgresql://u@127.0.0.1:\(port.port)/db: "))
        #expect(!run.error.contains("hunter2"))
        #expect(run.error.split(separator: "\n").count == 1)
    }

    @Test("kill -9 of an indexer at random moments leaves the index consistent, and a rerun completes it")
    func killNine() async throws {
        let server = try FakeOllamaServer()
        server.fault = .delay(milliseconds: 10)
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(40, in: folder)
        let host = ["OLLAMA_HOST": server.baseURL.absoluteString]
        let reference = try await PostgresServer.freshURL()
        let started = Date()
        let full = try await runBinary(
            ["index", "--batch", "4", notes], environment: host.merging(["TROVE_INDEX": reference]) { $1 })
        try #require(full.status == 0, "\(full.error)")
        let duration = Date().timeIntervalSince(started)
        let expected = try IndexLocation(reference).open(createIfMissing: false).contentRows()

        let seed = UInt64(Date().timeIntervalSince1970 * 1000) % 100_000
        var generator = SplitMix64(seed: seed)
        var partial = 0
        // A kill must land mid-run for the test to mean anything: while none has, up to 5 more trials kill in the
        // middle of the reference run's duration instead of anywhere in it.
        var trial = -1
        while trial + 1 < 5 || (partial == 0 && trial + 1 < 10) {
            trial += 1
            let index = try await PostgresServer.freshURL()
            let environment = host.merging(["TROVE_INDEX": index]) { $1 }
            let child = try Child(
                ["index", "--batch", "4", notes], environment: environment, logs: folder.path + "/trial\(trial)")
            let draw = Double(generator.next() % 1000) / 1000
            let delay = trial < 5 ? draw * duration * 1.1 : (0.3 + 0.4 * draw) * duration
            try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            child.signal(SIGKILL)
            let killed = await child.wait()
            let context = "seed \(seed), trial \(trial), killed after \(delay) s (status \(killed.status))"
            if let store = try? IndexLocation(index).open(createIfMissing: false) {
                #expect(try store.integrityCheck() == "ok", "\(context)")
                #expect(try store.halfWrittenDocuments().isEmpty, "\(context)")
                let documents = try store.statistics().documents
                if documents > 0 && documents < 40 { partial += 1 }
            }
            // The killed session's advisory locks went with it: the rerun is not refused.
            let rerun = try await runBinary(["index", "--batch", "4", notes], environment: environment)
            #expect(rerun.status == 0, "\(context): \(rerun.error)")
            #expect(try IndexLocation(index).open(createIfMissing: false).contentRows() == expected, "\(context)")
        }
        #expect(partial >= 1, "seed \(seed): none of the kills left a partly built index")
    }
}
