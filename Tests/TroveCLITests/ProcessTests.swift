@preconcurrency import Glibc
import Foundation
import Testing
import TroveStore
import TroveTestSupport

/// A `trove` child process whose output goes to files, so nothing blocks when nobody reads it.
final class Child: @unchecked Sendable {  // the Process is only touched through its thread-safe methods
    let process = Process()
    let outputPath: String
    let errorPath: String

    init(_ arguments: [String], environment: [String: String], logs: String, input: FileHandle? = nil) throws {
        outputPath = logs + ".out"
        errorPath = logs + ".err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = troveExecutable
        process.arguments = arguments
        process.environment = environment.merging(["HOME": NSTemporaryDirectory(), "SWIFT_BACKTRACE": "enable=no"]) {
            $1
        }
        process.standardInput = input ?? FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits on a thread of its own (not a cooperative one) and returns the exit status and output.
    func wait() async -> Invocation {
        await withCheckedContinuation { continuation in
            Thread {
                self.process.waitUntilExit()
                continuation.resume(
                    returning: Invocation(
                        status: self.process.terminationStatus,
                        output: (try? String(contentsOfFile: self.outputPath, encoding: .utf8)) ?? "",
                        error: (try? String(contentsOfFile: self.errorPath, encoding: .utf8)) ?? ""))
            }.start()
        }
    }
}

/// A folder of `count` notes with three sections each.
func writeNotes(_ count: Int, in folder: TemporaryDirectory, under name: String = "notes") throws -> String {
    for number in 0..<count {
        _ = try folder.write(
            "\(name)/group\(number % 7)/note \(number).md",
            """
            # Note \(number)

            The first part of note \(number) speaks of rivers and \(number * 13 % 97) stones.

            ## Middle

            Middle words \(number % 11) with bridges, ferries and a lighthouse keeper.

            ## End

            The end of note \(number): gardens, kayaks \(number % 5), and a long walk home.

            """)
    }
    return folder.path + "/" + name
}

/// Ids differ between runs; everything else must be the same.
func sameContents(_ left: String, _ right: String) throws -> Bool {
    try SQLiteStore(path: left, createIfMissing: false).contentRows()
        == SQLiteStore(path: right, createIfMissing: false).contentRows()
}

@Suite("trove index as a process: signals, crashes and concurrent readers", .serialized)
struct ProcessTests {
    @Test("Ctrl-C finishes the current batch, prints what was done, and exits 130; a rerun completes the index")
    func interrupt() async throws {
        let server = try FakeOllamaServer()
        // 160 requests of 1 s: far longer than the wait for the signal, even when the 2-thread test pool is busy
        // for half a minute with other suites' synchronous work (at 200 ms the run could end before the signal).
        server.fault = .delay(milliseconds: 1000)
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(40, in: folder)
        let index = folder.path + "/i.sqlite"
        let environment = ["OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": index]
        let child = try Child(["index", "--batch", "1", "--jobs", "1", notes], environment: environment, logs: index)
        #expect(await eventually { server.embeddedInputCount >= 6 })
        child.signal(SIGINT)
        let run = await child.wait()
        #expect(run.status == 130, "\(run.error)")
        #expect(run.output.contains(" new, 0 changed, 0 unchanged, 0 removed, 0 skipped; "))
        #expect(run.error.contains("stopping after the current batch… (press Ctrl-C again to quit at once)\n"))
        #expect(run.error.hasSuffix("interrupted: what is counted above is saved — run trove index again to finish\n"))
        let saved = Int(run.output.prefix { $0 != " " }) ?? -1
        let store = try SQLiteStore(path: index, createIfMissing: false)
        #expect(try store.integrityCheck() == "ok")
        #expect(try store.statistics().documents == saved)
        #expect(saved > 0 && saved < 40)

        server.fault = .normal
        let rest = try await runBinary(["index"], environment: environment)
        #expect(rest.status == 0)
        #expect(rest.output.hasPrefix("\(40 - saved) new, 0 changed, \(saved) unchanged, 0 removed, 0 skipped; "))
    }

    @Test("kill -9 at random moments never corrupts the index, and a rerun reaches the uninterrupted result")
    func killNine() async throws {
        let server = try FakeOllamaServer()
        server.fault = .delay(milliseconds: 10)
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(60, in: folder)
        let host = ["OLLAMA_HOST": server.baseURL.absoluteString]
        let reference = folder.path + "/reference.sqlite"
        let started = Date()
        let full = try await runBinary(
            ["index", "--batch", "4", notes], environment: host.merging(["TROVE_INDEX": reference]) { $1 })
        try #require(full.status == 0, "\(full.error)")
        let duration = Date().timeIntervalSince(started)

        // Seeded, so a failure can be replayed: the seed is in the failure message.
        let seed = UInt64(Date().timeIntervalSince1970 * 1000) % 100_000
        var generator = SplitMix(seed: seed)
        var partial = 0
        // A kill must land mid-run for the test to mean anything: while none has, up to 10 more trials kill in the
        // middle of the reference run's duration instead of anywhere in it.
        var trial = -1
        while trial + 1 < 10 || (partial == 0 && trial + 1 < 20) {
            trial += 1
            let index = folder.path + "/trial\(trial).sqlite"
            let environment = host.merging(["TROVE_INDEX": index]) { $1 }
            let child = try Child(["index", "--batch", "4", notes], environment: environment, logs: index)
            let draw = Double(generator.next() % 1000) / 1000
            let delay = trial < 10 ? draw * duration * 1.1 : (0.3 + 0.4 * draw) * duration
            try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            child.signal(SIGKILL)
            let killed = await child.wait()
            let context = "seed \(seed), trial \(trial), killed after \(delay) s (status \(killed.status))"
            if FileManager.default.fileExists(atPath: index) {
                let store = try SQLiteStore(path: index, createIfMissing: true)
                #expect(try store.integrityCheck() == "ok", "\(context)")
                #expect(try store.halfWrittenDocuments().isEmpty, "\(context)")
                let documents = try store.statistics().documents
                if documents > 0 && documents < 60 { partial += 1 }
            }
            let rerun = try await runBinary(["index", "--batch", "4", notes], environment: environment)
            #expect(rerun.status == 0, "\(context): \(rerun.error)")
            #expect(try sameContents(index, reference), "\(context)")
        }
        // The kills must have landed mid-run for the test to mean anything.
        #expect(partial >= 1, "seed \(seed): none of the kills left a partly built index")
    }

    @Test("search works while index writes, from another process, and never sees a locked database")
    func readersDuringWrites() async throws {
        let server = try FakeOllamaServer()
        server.fault = .delay(milliseconds: 40)
        let folder = try TemporaryDirectory()
        let notes = try writeNotes(40, in: folder)
        let index = folder.path + "/i.sqlite"
        let environment = ["OLLAMA_HOST": server.baseURL.absoluteString, "TROVE_INDEX": index]
        let writer = try Child(["index", "--batch", "2", notes], environment: environment, logs: index)
        #expect(
            await eventually {
                try SQLiteStore(path: index, createIfMissing: false).statistics().documents > 0
            })
        var searches: [Invocation] = []
        for _ in 0..<6 {
            searches.append(try await runBinary(["search", "-n", "3", "rivers and stones"], environment: environment))
        }
        let written = await writer.wait()
        #expect(written.status == 0, "\(written.error)")
        for search in searches {
            #expect(search.status == 0, "\(search.error)")
            #expect(search.output.contains("note "), "\(search.output)")
            #expect(!search.error.contains("locked"))
        }
    }
}

/// A small seeded generator (SplitMix64), so a failing trial can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
