@preconcurrency import Glibc
import Foundation
import TroveArguments
import TroveTestSupport

/// `trove-bench fake-ollama`: the tests' fake Ollama server as a process, so a benchmark (Benchmarks/bench-web.sh)
/// has a chat model that streams one word at a time at a known pace, with no Ollama installed.
enum FakeOllamaCommand {
    static let portFile = Option("--port-file", value: "FILE", help: "write the chosen port here once listening")
    static let delay = Option(
        "--delay-ms", value: "MS", .integer(min: 0), help: "pause before each streamed word", default: "20")
    static let words = Option(
        "--words", value: "N", .integer(min: 1), help: "words in each chat answer", default: "40")

    static let spec = CommandSpec(
        name: "fake-ollama", abstract: "the tests' fake Ollama (embedding and chat), until killed",
        usage: "trove-bench fake-ollama [--port-file FILE] [--delay-ms MS] [--words N]",
        discussion: """
            Serves nomic-embed-text (the fake's deterministic embedding) and llama3.2 (a chat model that streams an
            answer of N words citing [1], one word per line, MS apart) on a free loopback port, until killed.
            """,
        groups: [OptionGroup("Options", [portFile, delay, words])])

    static func main(_ arguments: Arguments) async throws -> Int32 {
        let server = try FakeOllamaServer(models: [.embedding("nomic-embed-text"), .chat("llama3.2")])
        server.streaming.delayMilliseconds = arguments.integer(Self.delay) ?? 20
        let count = arguments.integer(Self.words) ?? 40
        server.streaming.reply = (0..<count).map { $0 == count - 1 ? "end [1]." : "word\($0)" }.joined(separator: " ")
        if let file = arguments.value(Self.portFile) {
            try String(server.port).write(toFile: file, atomically: true, encoding: .utf8)
        }
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
