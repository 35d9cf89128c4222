import Foundation
@preconcurrency import Glibc
import Testing
import TroveStore
import TroveTestSupport

@Suite("trove watch as a process: kill -9, restart, the writer lock, signals", .serialized)
struct WatchProcessTests {
    @Test(
        "killed with kill -9 mid-batch, a restarted watch catches up with every change; trove index meanwhile is refused naming it"
    )
    func killedThenRestarted() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(3, in: folder)
        let index = folder.path + "/i.sqlite"
        let environment = ["OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": index]
        try #require(try await runBinary(["index", notes], environment: environment).status == 0)

        // Embedding requests of 6 s (two in flight at once): the pass is surely running when trove index starts,
        // even on a loaded machine.
        server.fault = .delay(milliseconds: 6000)
        let first = try Child(["watch", "--json"], environment: environment, logs: folder.path + "/first")
        #expect(
            await eventually { (try String(contentsOfFile: first.outputPath, encoding: .utf8)).contains("startup") })
        let before = server.embeddedInputCount
        _ = try writeNotes(40, in: folder)  // 37 new notes, 3 rewritten the same
        // The burst is handed over 300 ms after its last event; then the pass sits in its embedding requests.
        try await Task.sleep(for: .seconds(1.5))
        #expect(server.embeddedInputCount == before, "still embedding")
        // Mid-pass: the watcher holds the writer lock, and says who it is.
        let refused = try await runBinary(["index"], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.error.contains("pid \(first.process.processIdentifier)"), "\(refused.error)")
        first.signal(SIGKILL)
        _ = await first.wait()
        // Changes while nothing watches: an edit, a deletion, a new folder.
        try folder.write("notes/group1/note 1.md", "# Note 1\n\nrewritten while nobody watched: pelican\n")
        try FileManager.default.removeItem(atPath: notes + "/group2/note 2.md")
        try folder.write("notes/later/fresh.md", "a fresh note: heron\n")

        server.fault = .normal
        let second = try Child(["watch", "--json"], environment: environment, logs: folder.path + "/second")
        #expect(
            await eventually { (try String(contentsOfFile: second.outputPath, encoding: .utf8)).contains("startup") })
        let store = try SQLiteStore(path: index, createIfMissing: false)
        #expect(try store.integrityCheck() == "ok")
        // The same contents as a fresh index of the folder as it is now.
        let reference = folder.path + "/reference.sqlite"
        try #require(
            try await runBinary(["index", notes], environment: environment.merging(["TROVE_INDEX": reference]) { $1 })
                .status == 0)
        #expect(try sameContents(index, reference))
        second.signal(SIGTERM)
        let run = await second.wait()
        #expect(run.status == 130, "\(run.error)")
        #expect(run.error.contains("watching \(notes) ("), "\(run.error)")
        let line = try #require(run.output.split(separator: "\n").first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["reason"] as? String == "startup")
        let summary = try #require(json["summary"] as? [String: Any])
        // What the killed pass had not committed, plus the fresh note, is new; the deleted note is removed.
        #expect((summary["new"] as? Int ?? 0) >= 1 && summary["removed"] as? Int == 1, "\(line)")
    }

    @Test("trove serve --watch and trove mcp --watch keep the index current while they serve")
    func serversWatch() async throws {
        let server = try FakeOllamaServer()
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(2, in: folder)
        let index = folder.path + "/i.sqlite"
        let environment = ["OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": index]
        try #require(try await runBinary(["index", notes], environment: environment).status == 0)
        // The watch takes trove watch's crawl options: an excluded folder stays out of the index.
        for (number, command) in [["serve", "--watch", "--exclude", "drafts"], ["mcp", "--watch", "--exclude", "drafts"]]
            .enumerated()
        {
            // trove mcp serves until its stdin closes: give it a pipe that stays open.
            let input = Pipe()
            let child = try Child(
                command, environment: environment, logs: folder.path + "/\(command[0])",
                input: command[0] == "mcp" ? input.fileHandleForReading : nil)
            let log = { (try? String(contentsOfFile: child.errorPath, encoding: .utf8)) ?? "" }
            #expect(await eventually(within: 30) { log().contains("caught up") }, "\(log())")
            let word = "okapi\(number)"
            try folder.write("notes/drafts/unseen by \(command[0]).md", "a draft about the \(word)\n")
            try folder.write("notes/seen by \(command[0]).md", "a note about the \(word)\n")
            #expect(
                await eventually {
                    (try? runBinaryBlockingForTest(["search", "--mode", "keyword", "--cold", word], environment))?
                        .contains("seen by \(command[0]).md") == true
                }, "\(command)")
            let hits = try runBinaryBlockingForTest(["search", "--mode", "keyword", "--cold", word], environment)
            #expect(!hits.contains("unseen by"), "\(command): \(hits)")
            child.signal(SIGTERM)
            _ = await child.wait()
        }
    }

    @Test("usage: --poll needs a whole number of seconds, --help documents the options")
    func usage() async throws {
        let folder = try TemporaryDirectory()
        let bad = await trove(["watch", "--poll", "0"], index: folder.path + "/i.sqlite")
        #expect(bad.status == 64)
        let none = await trove(["watch"], index: folder.path + "/i.sqlite")
        #expect(none.status == 64)
        #expect(none.error.contains("no index at \(folder.path)/i.sqlite yet — name a folder: trove watch FOLDER"))
        let help = await trove(["watch", "--help"], index: folder.path + "/i.sqlite")
        #expect(help.status == 0)
        for option in ["--poll SECONDS", "--json", "--include GLOB", "max_user_watches"] {
            #expect(help.output.contains(option), "\(option)")
        }
        for command in ["serve", "mcp"] {
            let text = await trove([command, "--help"], index: folder.path + "/i.sqlite")
            #expect(text.output.contains("--watch"), "\(command)")
        }
    }
}

/// `trove ARGS` run to the end on the calling thread; its stdout. For polling inside `eventually`.
func runBinaryBlockingForTest(_ arguments: [String], _ environment: [String: String]) throws -> String {
    let process = Process()
    process.executableURL = troveExecutable
    process.arguments = arguments
    process.environment = environment.merging(["HOME": NSTemporaryDirectory()]) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
