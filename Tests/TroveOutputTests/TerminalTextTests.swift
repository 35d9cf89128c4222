import Testing
import TroveOutput

/// A document, a file name or a model's answer must not be able to act on the user's terminal.
@Suite("Escaping text for a terminal")
struct TerminalTextTests {
    static let osc = "\u{1B}]0;pwned\u{07}"  // sets the window title
    static let csi = "\u{1B}[2J"  // clears the screen

    @Test("control characters, C1 controls and direction overrides are shown escaped; newlines and tabs stay")
    func escaping() {
        #expect(TerminalText.escaped("a\(Self.osc)b") == "a\\x1b]0;pwned\\x07b")
        #expect(TerminalText.escaped("x\(Self.csi)y\r\u{8}z") == "x\\x1b[2Jy\\x0d\\x08z")
        #expect(TerminalText.escaped("one\ntwo\tthree") == "one\ntwo\tthree")
        #expect(TerminalText.escaped("one\ntwo", keepingNewlines: false) == "one\\x0atwo")
        #expect(TerminalText.escaped("\u{9B}31m \u{202E}txt.exe") == "\\x9b31m \\u{202e}txt.exe")
        #expect(TerminalText.escaped("café ✓ 日本") == "café ✓ 日本")
    }
}
