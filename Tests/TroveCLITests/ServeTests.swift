import Foundation
import Testing
import TroveTestSupport

/// A `trove serve` child process, stopped (SIGTERM) when the test is done.
final class ServeProcess: @unchecked Sendable {  // only touched by the test that owns it, one call at a time
    let process = Process()
    let errorFile: String

    init(environment: [String: String], folder: TemporaryDirectory) throws {
        errorFile = folder.path + "/serve.log"
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        process.executableURL = troveExecutable
        process.arguments = ["serve"]
        process.environment = environment.merging(["HOME": NSTemporaryDirectory(), "SWIFT_BACKTRACE": "enable=no"]) {
            $1
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errorFile)
        try process.run()
    }

    var log: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }

    /// The socket the log says it serves on ("serving INDEX on PATH; Ctrl-C stops"), once that file exists; nil
    /// when none appears within 10 s.
    func socket() async -> String? {
        await poll(within: 10) {
            guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("serving ") }),
                let path = line.split(separator: " on ").last?.split(separator: ";").first.map(String.init)
            else { return nil }
            return FileManager.default.fileExists(atPath: path) ? path : nil
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

@Suite("trove serve keeps the index loaded")
struct ServeTests {
    @Test("search answers through a running server, which reloads after the index changes; without it, search is cold")
    func warmAndReload() async throws {
        let ollama = try rankingServer()
        let folder = try TemporaryDirectory()
        let index = folder.path + "/i.sqlite"
        let environment = ["OLLAMA_HOST": ollama.baseURL.absoluteString, "TROVE_INDEX": index]
        let indexed = await trove(["index", corpora], index: index, server: ollama)
        try #require(indexed.status == 0)
        let cold = await trove(["search", "--json", "--explain", "git rebase autosquash"], index: index, server: ollama)

        let server = try ServeProcess(environment: environment, folder: folder)
        defer { server.stop() }
        _ = await server.socket()
        #expect(server.log.hasPrefix("serving \(index) on \(index).sock"))
        let attributes = try FileManager.default.attributesOfItem(atPath: index + ".sock")
        #expect((attributes[.posixPermissions] as? Int ?? 0) & 0o077 == 0)

        let warm = await trove(["search", "--json", "--explain", "git rebase autosquash"], index: index, server: ollama)
        #expect(warm.status == 0)
        // The same hits; scores may differ in the last bits, since the server may run another OpenBLAS kernel.
        func hits(_ output: String) throws -> [[String: Any]] {
            let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            return object?["hits"] as? [[String: Any]] ?? []
        }
        let warmHits = try hits(warm.output)
        let coldHits = try hits(cold.output)
        #expect(warmHits.count == 10)
        #expect(warmHits.map { $0["path"] as? String } == coldHits.map { $0["path"] as? String })
        #expect(warmHits.map { $0["start_line"] as? Int } == coldHits.map { $0["start_line"] as? Int })
        for (a, b) in zip(warmHits, coldHits) {
            #expect(abs((a["vector_score"] as? Double ?? 0) - (b["vector_score"] as? Double ?? 1)) < 1e-4)
        }

        let notes = try TemporaryDirectory()
        _ = try notes.write("kayak.md", "# Kayaks\n\nThe kayak paddle feathering angle matters.\n")
        let added = await trove(["index", notes.path], index: index, server: ollama)
        try #require(added.status == 0)
        let after = await trove(["search", "-l", "-n", "1", "kayak paddle feathering"], index: index, server: ollama)
        #expect(after.output == notes.path + "/kayak.md\n")
        #expect(server.log.contains("the index changed: reloading"))

        // Other embedding settings (here another --ollama) are refused by the server: this search gets its own
        // answer, here a model server that is not running, never the server's hits.
        let closed = try ClosedPort()
        let elsewhere = await trove(
            ["search", "--ollama", "127.0.0.1:\(closed.port)", "kayak paddle feathering"], index: index, server: ollama)
        #expect(elsewhere.status == 69)
        #expect(elsewhere.output.isEmpty)
        #expect(elsewhere.error.hasPrefix("the running trove serve embeds with ollama at "))

        server.stop()
        // SIGTERM stops the server, which removes its socket.
        #expect(!FileManager.default.fileExists(atPath: index + ".sock"))
        #expect(server.log.contains("stopped; \(index).sock removed"))
        let fallback = await trove(["search", "-l", "-n", "1", "kayak paddle feathering"], index: index, server: ollama)
        #expect(fallback.status == 0)
        #expect(fallback.output == notes.path + "/kayak.md\n")
    }

    @Test("a running server prints the hits as the search itself would, byte for byte, in every format")
    func printsForTheClient() async throws {
        let ollama = try rankingServer()
        let folder = try TemporaryDirectory()
        let index = folder.path + "/i.sqlite"
        try #require(await trove(["index", corpora], index: index, server: ollama).status == 0)
        let server = try ServeProcess(
            environment: ["OLLAMA_HOST": ollama.baseURL.absoluteString, "TROVE_INDEX": index], folder: folder)
        defer { server.stop() }
        try #require(await server.socket() == index + ".sock", "\(server.log)")
        let query = "how do I \"rebase\" with autosquash"
        // Paths under this folder are shown relative to it (Corpora/…), colour and escapes only on a terminal.
        let cases: [(arguments: [String], terminal: Bool)] = [
            ([], false), ([], true), (["--explain", "-n", "3"], true), (["--json"], false),
            (["--json", "--explain"], false), (["--jsonl", "-n", "4"], false), (["-l"], false), (["-l", "-0"], false),
            (["--all-chunks", "-n", "5"], false), (["--mode", "keyword"], true), (["--mode", "vector", "-n", "2"], false),
        ]
        let connections = ollama.connectionCount
        var warm: [Invocation] = []
        for (arguments, terminal) in cases {
            warm.append(await trove(["search"] + arguments + [query], index: index, server: ollama, terminal: terminal))
        }
        // Only the server embedded (its one client): no search fell back to searching on its own.
        #expect(ollama.connectionCount == connections + 1, "\(server.log)")
        for ((arguments, terminal), answer) in zip(cases, warm) {
            let cold = await trove(
                ["search", "--cold"] + arguments + [query], index: index, server: ollama, terminal: terminal)
            #expect(answer.status == 0 && cold.status == 0)
            #expect(!answer.output.isEmpty)
            #expect(answer.output == cold.output, "\(arguments), terminal \(terminal)")
            #expect(answer.output.contains("\u{1B}[") == terminal, "\(arguments)")
        }
    }

    @Test("a running server embeds every query through one Ollama client: one connection for many searches")
    func oneClient() async throws {
        let ollama = try rankingServer()
        let folder = try TemporaryDirectory()
        let index = folder.path + "/i.sqlite"
        let notes = try TemporaryDirectory()
        _ = try notes.write("kayak.md", "# Kayaks\n\nThe kayak paddle feathering angle matters.\n")
        _ = try notes.write("bread.md", "# Bread\n\nSourdough needs a lively starter.\n")
        try #require(await trove(["index", notes.path], index: index, server: ollama).status == 0)
        let server = try ServeProcess(
            environment: ["OLLAMA_HOST": ollama.baseURL.absoluteString, "TROVE_INDEX": index], folder: folder)
        defer { server.stop() }
        _ = await server.socket()
        let connections = ollama.connectionCount
        let embeds = ollama.requestCount(path: "/api/embed")
        for query in ["kayak paddle", "sourdough starter", "feathering angle"] {
            let answer = await trove(["search", "-l", "--mode", "vector", query], index: index, server: ollama)
            #expect(answer.status == 0)
        }
        #expect(ollama.requestCount(path: "/api/embed") == embeds + 3)
        // A client (URLSession) per request opened a connection per search.
        #expect(ollama.connectionCount == connections + 1, "\(server.log)")
    }

    @Test(
        "a re-embed to another provider while serving stops the server: a client is never answered by another Ollama",
        .enabled(if: BuiltinModel.isInstalled, BuiltinModel.skipReason))
    func providerChangeStops() async throws {
        let ollama = try FakeOllamaServer(models: [.embedding("all-minilm", dimension: 384, contextLength: 512)])
        let folder = try TemporaryDirectory()
        let index = folder.path + "/i.sqlite"
        let notes = try writeNotes(3, in: folder)
        let builtin = await trove(["index", "--embedder", "builtin", notes], index: index, environment: BuiltinModel.environment)
        try #require(builtin.status == 0, "\(builtin.error)")
        let environment = BuiltinModel.environment.merging(
            ["OLLAMA_HOST": ollama.baseURL.absoluteString, "TROVE_INDEX": index]) { $1 }
        let server = try ServeProcess(environment: environment, folder: folder)
        defer { server.stop() }
        try #require(await server.socket() == index + ".sock", "\(server.log)")
        // Admitted while the index was the built-in model's: another Ollama did not matter.
        let closed = try ClosedPort()
        let elsewhere = BuiltinModel.environment.merging(["OLLAMA_HOST": closed.baseURL.absoluteString]) { $1 }
        let before = await trove(["search", "-n", "1", "lighthouse keeper"], index: index, environment: elsewhere)
        #expect(before.status == 0, "\(before.error)")

        let reembedded = await trove(
            ["index", "--reembed", "--embedder", "ollama", "--model", "all-minilm"], index: index, server: ollama)
        try #require(reembedded.status == 0, "\(reembedded.output) \(reembedded.error)")
        // Now Ollama embeds this index: the server's Ollama must not answer for a client that names another.
        let after = await trove(["search", "-n", "1", "lighthouse keeper"], index: index, environment: elsewhere)
        #expect(after.status == 69, "\(after.output) \(after.error)")
        #expect(after.output.isEmpty)
        _ = await eventually(within: 5) { !server.process.isRunning }
        #expect(!server.process.isRunning)
        #expect(server.log.contains("the index now embeds with ollama, not builtin — stopping; start trove serve again"))
        #expect(!FileManager.default.fileExists(atPath: index + ".sock"))
    }
}
