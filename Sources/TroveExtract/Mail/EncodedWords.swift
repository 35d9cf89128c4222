import Foundation
import TroveIngest

/// RFC 2047 encoded words in header values: `=?charset?B?base64?=` and `=?charset?Q?quoted_printable?=`, decoded
/// into text; the whitespace between two adjacent encoded words is dropped, as the RFC says.
enum EncodedWords {
    /// `value` with its encoded words decoded; a malformed word stays as written.
    static func decode(_ value: String) -> String {
        guard value.contains("=?") else { return value }
        var result = ""
        var rest = Substring(value)
        var pendingSpace = ""
        var lastWasEncoded = false
        while let start = rest.range(of: "=?") {
            let before = rest[..<start.lowerBound]
            guard let word = word(at: rest[start.lowerBound...]) else {
                result += pendingSpace + before + "=?"
                pendingSpace = ""
                lastWasEncoded = false
                rest = rest[start.upperBound...]
                continue
            }
            if !(lastWasEncoded && before.allSatisfy({ $0 == " " || $0 == "\t" })) { result += before }
            result += word.text
            lastWasEncoded = true
            rest = word.rest
        }
        return result + rest
    }

    /// The encoded word at the start of `text` and what follows it, or nil when it is not one.
    private static func word(at text: Substring) -> (text: String, rest: Substring)? {
        let parts = text.dropFirst(2).split(separator: "?", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[3].hasPrefix("="), parts[0].count <= 64,
            let encoding = parts[1].uppercased().first, parts[1].count == 1
        else { return nil }
        let charset = String(parts[0].prefix { $0 != "*" })  // RFC 2231 adds *language
        let payload = Array(parts[2].utf8)
        let bytes: [UInt8]
        switch encoding {
        case "B": bytes = TransferDecoding.base64(payload[...])
        case "Q": bytes = TransferDecoding.quotedPrintable(payload.map { $0 == UInt8(ascii: "_") ? 0x20 : $0 }[...])
        default: return nil
        }
        return (DeclaredText.decode(bytes, charsets: [charset]).text, parts[3].dropFirst())
    }
}
