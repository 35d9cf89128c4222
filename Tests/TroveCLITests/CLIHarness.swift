import Foundation
import Testing
import TroveCLI
import TroveTestSupport

/// Runs `trove` in-process with captured streams and an environment that points at `server` and `index`; with
/// `terminal`, stdout is captured as a terminal's (colour, escaped control characters).
func trove(
    _ arguments: [String], index: String, server: FakeOllamaServer? = nil, environment: [String: String] = [:],
    terminal: Bool = false
) async -> Invocation {
    var env = ["HOME": NSTemporaryDirectory(), "TROVE_INDEX": index]
    if let server { env["OLLAMA_HOST"] = server.baseURL.absoluteString }
    env.merge(environment) { $1 }
    let output = CapturedStream(isTerminal: terminal)
    let error = CapturedStream()
    let status = await Launcher.run(arguments, console: Console(output: output, error: error, environment: env))
    return Invocation(status: status, output: output.text, error: error.text)
}

/// The repository's root folder, found from this file's path.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// The sample notes folder shipped with the repository.
let corpora = repositoryRoot + "/Corpora"

/// How text output shows a path: relative to the current folder when under it, as grep does.
func displayed(_ path: String) -> String {
    let folder = FileManager.default.currentDirectoryPath + "/"
    return path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path
}

/// The fake server the ranking tests use: more dimensions than the default, so that hashed words rarely collide.
func rankingServer() throws -> FakeOllamaServer {
    try FakeOllamaServer(models: [.embedding("nomic-embed-text", dimension: 1024)])
}

/// The rows (kind, query, expected file) of `Tests/Fixtures/corpus-queries.tsv`, or why it could not be read.
let corpusQueryRows: Result<[[String]], any Error> = Result {
    try String(contentsOfFile: repositoryRoot + "/Tests/Fixtures/corpus-queries.tsv", encoding: .utf8)
        .split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }.filter { $0.count == 3 }
}

/// The rows, empty when unreadable; `FixtureTests` fails visibly then, since parameterized tests over an empty
/// table would run no case at all and pass in silence.
let corpusQueries: [[String]] = (try? corpusQueryRows.get()) ?? []

@Suite("Test fixtures")
struct FixtureTests {
    @Test("the labelled query table loads, with keyword and semantic rows")
    func queryTable() throws {
        let rows = try corpusQueryRows.get()
        #expect(rows.contains { $0[0] == "keyword" })
        #expect(rows.contains { $0[0] == "semantic" })
        #expect(rows.count >= 10)
    }
}
