import TroveIngest

/// A header block (RFC 5322): unfolded fields, looked up by name without regard to case, values with RFC 2047
/// encoded words decoded.
struct MailHeaders {
    /// The fields in order: lowercase name, raw value (unfolded, trimmed).
    private(set) var fields: [(name: String, value: String)] = []

    /// Parses the header block's bytes. Raw 8-bit bytes (not allowed, often seen) are read as UTF-8 when valid, else
    /// in the encoding detected for them.
    init(_ bytes: ArraySlice<UInt8>) {
        let text = DeclaredText.decode(bytes, charsets: []).text
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if let first = line.first, first == " " || first == "\t", !fields.isEmpty {
                fields[fields.count - 1].value += " " + line.drop { $0 == " " || $0 == "\t" }
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased().trimmingTrailingSpaces
                fields.append((name, String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })))
            }
        }
    }

    /// The first field named `name` (lowercase), raw.
    subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The first field named `name`, its encoded words decoded, for display.
    func decoded(_ name: String) -> String? {
        self[name].map(EncodedWords.decode)
    }

    /// The media type (`text/plain`, lowercase; `text/plain` when absent, as RFC 2045 says) and its parameters
    /// (lowercase names, unquoted values).
    var contentType: (type: String, parameters: [String: String]) {
        guard let value = self["content-type"] else { return ("text/plain", [:]) }
        let pieces = Self.split(value)
        let type = pieces.first?.lowercased() ?? ""
        return (type.contains("/") ? type : "text/plain", Self.parameters(pieces.dropFirst()))
    }

    /// The `Content-Disposition` parameters and whether it says `attachment`.
    var disposition: (attachment: Bool, parameters: [String: String]) {
        guard let value = self["content-disposition"] else { return (false, [:]) }
        let pieces = Self.split(value)
        return (pieces.first?.lowercased() == "attachment", Self.parameters(pieces.dropFirst()))
    }

    /// A structured value cut at semicolons outside quotes.
    private static func split(_ value: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        for character in value {
            if character == "\"" { quoted.toggle() }
            if character == ";" && !quoted {
                pieces.append(current.trimmingSpaces)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current.trimmingSpaces)
        return pieces
    }

    /// `name=value` pieces as a dictionary; quotes removed, encoded words decoded; RFC 2231's `name*=charset''value`
    /// taken without its charset prefix.
    private static func parameters(_ pieces: ArraySlice<String>) -> [String: String] {
        var result: [String: String] = [:]
        for piece in pieces {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            var name = piece[..<equals].lowercased().trimmingSpaces
            var value = piece[piece.index(after: equals)...].trimmingSpaces
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            if name.hasSuffix("*") {
                name.removeLast()
                if let quote = value.lastIndex(of: "'") { value = String(value[value.index(after: quote)...]) }
                value = value.removingPercentEscapes
            }
            if result[name] == nil { result[name] = EncodedWords.decode(value) }
        }
        return result
    }
}

extension StringProtocol {
    /// Without leading or trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// Without trailing spaces and tabs.
    var trimmingTrailingSpaces: String {
        String(reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// `%XX` escapes (RFC 2231 values) decoded as UTF-8 bytes.
    var removingPercentEscapes: String {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
