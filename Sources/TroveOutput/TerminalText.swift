/// Text from documents, file names and models shown on a terminal: control characters and the invisible
/// direction overrides are written as visible escapes (`\x1b`, `\u{202e}`), so a document cannot move the cursor,
/// set the window title (OSC), recolour or clear the screen (CSI), or reorder what the user reads. Piped output is
/// left byte for byte as it is: it is data for another program, and `--json` escapes these characters anyway.
package enum TerminalText {
    /// `text` with every control character but newline and tab, DEL, the C1 controls and the bidirectional
    /// overrides replaced by a visible escape.
    package static func escaped(_ text: String, keepingNewlines: Bool = true) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: keepingNewlines) }) else {
            return text
        }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingNewlines: keepingNewlines) {
                result += scalar.value < 0x100
                    ? "\\x" + hex(scalar.value, digits: 2) : "\\u{" + hex(scalar.value, digits: 4) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return !keepingNewlines
        case 0x00...0x1F, 0x7F...0x9F: return true
        // Left-to-right/right-to-left embeddings, overrides and isolates ("Trojan Source").
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
