import Foundation
import Testing
import TroveTestSupport

@testable import TroveCLI

/// A document, a file name or a model's answer must not be able to act on the user's terminal.
@Suite("Escape sequences from documents on a terminal")
struct TerminalSafetyTests {
    static let osc = "\u{1B}]0;pwned\u{07}"  // sets the window title
    static let csi = "\u{1B}[2J"  // clears the screen

    @Test("a note with an OSC and a CSI sequence in its name, heading and text is searched without either reaching the terminal")
    func noteWithSequences() async throws {
        let server = try rankingServer()
        let folder = try TemporaryDirectory()
        let notes = folder.path + "/notes"
        _ = try folder.write(
            "notes/evil\(Self.csi).md",
            "# Title \(Self.osc)here\n\nThe kayak paddle \(Self.csi)feathering angle \(Self.osc)matters.\n")
        let index = folder.path + "/i.sqlite"
        let indexed = await trove(["index", notes], index: index, server: server)
        try #require(indexed.status == 0, "\(indexed.error)")

        let output = CapturedStream(isTerminal: true)
        let error = CapturedStream(isTerminal: true)
        let environment = [
            "HOME": NSTemporaryDirectory(), "TROVE_INDEX": index, "OLLAMA_HOST": server.baseURL.absoluteString,
            "NO_COLOR": "1",
        ]
        for arguments in [["search", "--cold", "kayak paddle feathering"], ["search", "--cold", "-l", "kayak"]] {
            let status = await Launcher.run(
                arguments, console: Console(output: output, error: error, environment: environment))
            #expect(status == 0, "\(error.text)")
        }
        #expect(!output.text.contains("\u{1B}"))
        #expect(!output.text.contains("\u{07}"))
        #expect(output.text.contains("evil\\x1b[2J.md"))
        #expect(output.text.contains("Title \\x1b]0;pwned\\x07here"))
        #expect(output.text.contains("paddle \\x1b[2Jfeathering angle \\x1b]0;pwned\\x07matters."))

        // Piped, the bytes are data and pass unchanged; --json escapes them as JSON does.
        let piped = await trove(["search", "--cold", "-l", "kayak"], index: index, server: server)
        #expect(piped.output.contains("evil\(Self.csi).md"))
        let json = await trove(["search", "--cold", "--json", "kayak"], index: index, server: server)
        #expect(!json.output.contains("\u{1B}"))
        #expect(json.output.contains("\\u001b[2J"))
    }
}
