/// Reads, by hand, a JSON object whose members are strings, whole numbers, booleans or null: `trove search`'s answer
/// from a socket (a one-shot client spends no ~1 ms on `JSONDecoder`'s first use), so anything else (nesting, a
/// fraction, bad escapes, invalid UTF-8, trailing bytes) is refused, never guessed at. Fuzzed against `JSONDecoder`
/// (FUZZING.md, `serve-reply`).
package enum FlatJSON {
    /// The members of the object in `line`; nil for anything but such an object.
    package static func object(_ line: some Collection<UInt8>) -> [String: JSON]? {
        var reader = Reader(bytes: Array(line))
        return reader.object()
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func object() -> [String: JSON]? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [String: JSON] = [:]
            if !take(UInt8(ascii: "}")) {
                repeat {
                    guard let key = string(), take(UInt8(ascii: ":")), let value = value(),
                        members.updateValue(value, forKey: key) == nil
                    else { return nil }
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "}")) else { return nil }
            }
            skipSpace()
            return at == bytes.count ? members : nil
        }

        private mutating func value() -> JSON? {
            skipSpace()
            guard at < bytes.count else { return nil }
            switch bytes[at] {
            case UInt8(ascii: "\""): return string().map(JSON.string)
            case UInt8(ascii: "t"): return word("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return word("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return word("null") ? .null : nil
            default: return integer().map(JSON.integer)
            }
        }

        /// `-?(0|[1-9][0-9]*)` that fits an Int64, not followed by a fraction or an exponent.
        private mutating func integer() -> Int64? {
            let start = at
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            let digits = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            guard at > digits, bytes[digits] != UInt8(ascii: "0") || at == digits + 1 else { return nil }
            if at < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[at]) {
                return nil
            }
            return Int64(String(decoding: bytes[start..<at], as: UTF8.self))
        }

        private mutating func string() -> String? {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
            at += 1
            var utf8: [UInt8] = []
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                switch byte {
                case UInt8(ascii: "\""): return String(validating: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { return nil }
                    let escape = bytes[at]
                    at += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = escapedScalar() else { return nil }
                        utf8.append(contentsOf: Array(String(scalar).utf8))
                    default: return nil
                    }
                case 0..<0x20: return nil  // a raw control character is not JSON
                default: utf8.append(byte)
                }
            }
            return nil
        }

        /// After `\u`: four hex digits, or a surrogate pair's two escapes; a lone surrogate is refused.
        private mutating func escapedScalar() -> Unicode.Scalar? {
            guard let first = hex4() else { return nil }
            guard (0xD800..<0xDC00).contains(first) else { return Unicode.Scalar(first) }
            guard word("\\u"), let second = hex4(), (0xDC00..<0xE000).contains(second) else { return nil }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        }

        private mutating func hex4() -> UInt32? {
            guard at + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16),
                bytes[at..<at + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
            else { return nil }
            at += 4
            return value
        }

        private mutating func word(_ text: String) -> Bool {
            let expected = Array(text.utf8)
            guard bytes.count - at >= expected.count, Array(bytes[at..<at + expected.count]) == expected else {
                return false
            }
            at += expected.count
            return true
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        private mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }
    }
}
