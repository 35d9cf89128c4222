/// The JSON header of a `.safetensors` file read straight from its bytes: an object of tensor entries
/// (`{"dtype": "F32", "shape": [384, 384], "data_offsets": [0, 589824]}`) and an optional `__metadata__`.
///
/// Not `JSONSerialization`: that, with its bridged `[String: Any]` casts, took 2–3 ms of every process that loads
/// the model, on the critical path of a one-query `trove embed` (BENCHMARKS.md#model-load). Any JSON is read (a value
/// it does not need is skipped, nested at most `maxDepth` deep); numbers where a tensor needs them must be integers.
enum SafeTensorsHeader {
    /// One entry as written; `nil` fields were missing or of the wrong type.
    struct Entry {
        var dtype: String?
        var shape: [Int]?
        var offsets: [Int]?
    }

    /// Nesting deeper than this is refused rather than recursed into.
    static let maxDepth = 64

    /// The entries by name (`__metadata__` included, as an entry with no fields); nil when the bytes are not one
    /// JSON object (trailing whitespace allowed).
    static func parse(_ bytes: UnsafeRawBufferPointer) -> [String: Entry]? {
        var reader = Reader(bytes: bytes.bindMemory(to: UInt8.self))
        guard let entries = reader.topLevel() else { return nil }
        reader.skipSpace()
        return reader.atEnd ? entries : nil
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        var atEnd: Bool { at == bytes.count }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        /// `{ "name": entry, … }`.
        mutating func topLevel() -> [String: Entry]? {
            var entries: [String: Entry] = [:]
            let ok = members { reader, name in
                guard let entry = reader.entry() else { return false }
                entries[name] = entry
                return true
            }
            return ok ? entries : nil
        }

        /// One tensor's object; any other value becomes an entry with no fields (refused later if it is a tensor).
        mutating func entry() -> Entry? {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "{") else { return skipValue(depth: 1) ? Entry() : nil }
            var entry = Entry()
            let ok = members { reader, key in
                switch key {
                case "dtype": return reader.string().map { entry.dtype = $0; return true } ?? reader.skipValue(depth: 2)
                case "shape": return reader.integers().map { entry.shape = $0; return true } ?? reader.skipValue(depth: 2)
                case "data_offsets":
                    return reader.integers().map { entry.offsets = $0; return true } ?? reader.skipValue(depth: 2)
                default: return reader.skipValue(depth: 2)
                }
            }
            return ok ? entry : nil
        }

        /// An object's members, each value read by `value` (which must consume it); false when malformed.
        mutating func members(_ value: (inout Reader, String) -> Bool) -> Bool {
            guard take(UInt8(ascii: "{")) else { return false }
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                skipSpace()
                guard let key = string(), take(UInt8(ascii: ":")), value(&self, key) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        }

        /// `[n, n, …]` of integers that fit an Int; nil (position unchanged) for anything else.
        mutating func integers() -> [Int]? {
            let start = at
            var values: [Int] = []
            guard take(UInt8(ascii: "[")) else { return nil }
            if take(UInt8(ascii: "]")) { return values }
            repeat {
                guard let value = integer() else {
                    at = start
                    return nil
                }
                values.append(value)
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else {
                at = start
                return nil
            }
            return values
        }

        /// An integer literal (no fraction or exponent) that fits an Int.
        mutating func integer() -> Int? {
            skipSpace()
            let start = at
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            var value = 0
            var digits = 0
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) {
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(Int(bytes[at] - 0x30))
                guard !overflow, !carry else { return nil }
                value = sum
                digits += 1
                at += 1
            }
            guard digits > 0, at >= bytes.count || ![UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[at])
            else { return nil }
            return bytes[start] == UInt8(ascii: "-") ? -value : value
        }

        /// A string literal, escapes decoded; nil (position unchanged) when there is none or it is malformed.
        mutating func string() -> String? {
            skipSpace()
            let start = at
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
            at += 1
            // Unescaped runs are decoded whole; escapes between them are appended one scalar at a time.
            var scalars = String.UnicodeScalarView()
            var runStart = at
            let bytes = self.bytes
            func flushRun(to end: Int) {
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<end])
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            }
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    flushRun(to: at)
                    at += 1
                    return String(scalars)
                }
                if byte < 0x20 { break }
                if byte != UInt8(ascii: "\\") {
                    at += 1
                    continue
                }
                flushRun(to: at)
                at += 1
                guard at < bytes.count, let scalar = escape() else { break }
                scalars.append(scalar)
                runStart = at
            }
            at = start
            return nil
        }

        /// The escape after a backslash (at its letter), advancing past it.
        mutating func escape() -> Unicode.Scalar? {
            let letter = bytes[at]
            at += 1
            switch letter {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                guard let high = hex4() else { return nil }
                guard (0xD800..<0xDC00).contains(high) else { return Unicode.Scalar(high) }
                // A surrogate pair: the low half must follow as its own escape.
                guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                    return nil
                }
                at += 2
                guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            default: return nil
            }
        }

        mutating func hex4() -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[at]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                default: return nil
                }
                value = value << 4 | digit
                at += 1
            }
            return value
        }

        /// Any JSON value, skipped; false when malformed or nested deeper than `maxDepth`.
        mutating func skipValue(depth: Int) -> Bool {
            guard depth <= SafeTensorsHeader.maxDepth else { return false }
            skipSpace()
            guard at < bytes.count else { return false }
            switch bytes[at] {
            case UInt8(ascii: "{"): return members { reader, _ in reader.skipValue(depth: depth + 1) }
            case UInt8(ascii: "["):
                at += 1
                if take(UInt8(ascii: "]")) { return true }
                repeat {
                    guard skipValue(depth: depth + 1) else { return false }
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "]"))
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard at + count <= bytes.count else { return false }
            for i in 0..<count where bytes[at + i] != word.utf8Start[i] { return false }
            at += count
            return true
        }

        /// A JSON number: -? int frac? exp?
        mutating func number() -> Bool {
            func digits(_ reader: inout Reader) -> Int {
                var count = 0
                while reader.at < reader.bytes.count, (0x30...0x39).contains(reader.bytes[reader.at]) {
                    reader.at += 1
                    count += 1
                }
                return count
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits(&self) > 0 else { return false }
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                guard digits(&self) > 0 else { return false }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
                at += 1
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits(&self) > 0 else { return false }
            }
            return true
        }
    }
}
