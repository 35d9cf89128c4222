import Foundation
import Testing
import TroveSystem
import TroveTestSupport
import TroveTestTraits

/// The repository's root, from this file's path.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// Selenium's venv (Scripts/test.sh makes it: Tests/Browser/setup.sh), Debian's chromium and chromium-driver.
let browserPython = repositoryRoot + "/.build/browser-venv/bin/python"
let browserMissing: String? = {
    let needed = [
        (browserPython, "Selenium's venv: bash Tests/Browser/setup.sh"), ("/usr/bin/chromium", "apt-get install chromium"),
        ("/usr/bin/chromedriver", "apt-get install chromium-driver"),
    ]
    return needed.first { !FileManager.default.isExecutableFile(atPath: $0.0) }.map { "needs \($0.1)" }
}()

/// Where each run's screenshots are kept, one per step.
let browserArtifacts = repositoryRoot + "/.build/test-artifacts/web"

@Suite(
    "trove web in a real browser (headless Chromium through WebDriver)",
    .enabled(if: browserMissing == nil, Comment(rawValue: browserMissing ?? "")), .offCooperativePool, .serialized)
struct BrowserTests {
    @Test("watch progress, search, keys, a PDF's page, a hostile note, streaming, citation, model switch, Stop, resume")
    func journey() async throws {
        let rig = try await WebRig(chatDelayMilliseconds: 150, chatModels: ["llama3.2", "qwen2.5"], pdf: true)
        // A watch pass in progress, as `trove web --watch` records it: the page's status shows it.
        rig.web.progress.record(.watching(roots: [rig.notes], folders: 1))
        rig.web.progress.record(.indexing(.progress(filesDone: 2, filesTotal: 5, chunksEmbedded: 0)))
        // A session made by `trove chat` itself, for the page to resume.
        let chat = try await run(
            troveExecutable.path,
            ["chat", "--session", "from-cli", "--index", rig.indexPath, "--ollama", rig.ollama.baseURL.absoluteString],
            input: "how do I connect through the bastion host with ssh?\n")
        #expect(chat.status == 0, "\(chat.error)")
        // And one whose source is a PDF's page, stored as `[1] …/mime-spec.pdf p.N (lines a–b)`.
        let paged = try await run(
            troveExecutable.path,
            ["chat", "--session", "pdf-cli", "--index", rig.indexPath, "--ollama", rig.ollama.baseURL.absoluteString],
            input: "what does the shared MIME info database say about glob patterns?\n")
        #expect(paged.status == 0, "\(paged.error)")
        try? FileManager.default.removeItem(atPath: browserArtifacts)
        try FileManager.default.createDirectory(atPath: browserArtifacts, withIntermediateDirectories: true)
        let url = "http://127.0.0.1:\(rig.web.port)/#token=\(WebRig.token)"
        let checks = try await run(
            browserPython, [repositoryRoot + "/Tests/Browser/web_checks.py", url, browserArtifacts])
        #expect(checks.status == 0, "\(checks.error)")
        let seen = try #require(JSON.parse(Data(checks.output.utf8)), "\(checks.output) \(checks.error)")
        #expect((seen["tokens"]?.integerValue ?? 0) >= 5)
        #expect(seen["screenshots"]?.arrayValue?.count == 12)
        #expect(seen["pdf_hit"]?.stringValue?.contains("mime-spec.pdf:") == true)
        // The switched model wrote the later answers.
        let sent = JSON.parse(rig.ollama.lastRequestBody(path: "/api/chat") ?? Data())
        #expect(sent?["model"] == "qwen2.5:latest")
        // Stop cancelled the answer on the server: it is stored, marked interrupted.
        let turns = try rig.json("/api/sessions/default")["turns"]?.arrayValue ?? []
        #expect(turns.count == 6)
        #expect(turns.last?["interrupted"] == true)
        #expect(turns.dropLast().last?["content"] == "what about the garden?")
    }
}

/// A finished child process.
struct Finished: Sendable {
    var status: Int32
    var output: String
    var error: String
}

/// Runs `executable` to its end, `input` on its stdin, waiting on a thread of its own.
func run(_ executable: String, _ arguments: [String], input: String = "") async throws -> Finished {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    return await withCheckedContinuation { continuation in
        Thread {
            let output = stdout.fileHandleForReading.readDataToEndOfFile()
            let error = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            continuation.resume(
                returning: Finished(
                    status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                    error: String(decoding: error, as: UTF8.self)))
        }.start()
    }
}
