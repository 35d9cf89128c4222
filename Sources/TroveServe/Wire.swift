import Foundation
import TroveKit
import TroveOutput

/// The client's half of the protocol without Codable. A one-shot `trove search` spent ~1 ms in its only
/// `JSONEncoder` and `JSONDecoder` calls: Codable's generic metadata and conformance lookups, paid once per process
/// (BENCHMARKS.md). So the client writes its request and reads a printed answer by hand; the server keeps Codable,
/// warm after its first request, and `WireTests` checks that the two write and read the same JSON.
extension SearchServer.Envelope {
    /// The envelope as one JSON object, what `JSONEncoder` writes for it up to key order and the spelling of
    /// numbers; nil when a number is not finite, which JSON cannot carry (`JSONEncoder` throws there).
    package func json() -> String? {
        var object = JSONObjectWriter()
        object.add("protocol", `protocol`)
        object.add("embedding", json: admission.json())
        object.add("request", json: request.json())
        if let style { object.add("printing", json: style.json()) }
        return object.finished()
    }
}

extension SearchServer.Admission {
    func json() -> String? {
        var object = JSONObjectWriter()
        if let ollama { object.add("ollama", ollama) }
        if let builtinModels { object.add("builtinModels", builtinModels) }
        if let openAI { object.add("openAI", openAI) }
        return object.finished()
    }
}

extension OutputStyle {
    func json() -> String? {
        var object = JSONObjectWriter()
        object.add("format", format.rawValue)
        object.add("color", color)
        object.add("escapeControls", escapeControls)
        object.add("explain", explain)
        object.add("nullTerminated", nullTerminated)
        object.add("currentDirectory", currentDirectory)
        return object.finished()
    }
}

extension SearchRequest {
    func json() -> String? {
        var object = JSONObjectWriter()
        object.add("query", query)
        object.add("mode", mode.rawValue)
        object.add("limit", limit)
        if let minScore { object.add("minScore", minScore) }
        object.add("filter", json: filter.json())
        object.add("groupByDocument", groupByDocument)
        object.add("candidateDepth", candidateDepth)
        object.add("fusion", fusion.rawValue)
        object.add("fusionConstant", fusionConstant)
        object.add("keywordWeight", keywordWeight)
        object.add("normalization", normalization.rawValue)
        object.add("scaleDepth", scaleDepth)
        if let chosenBM25 {
            var bm25 = JSONObjectWriter()
            bm25.add("k1", chosenBM25.k1)
            bm25.add("b", chosenBM25.b)
            bm25.add("headingWeight", chosenBM25.headingWeight)
            object.add("chosenBM25", json: bm25.finished())
        }
        object.add("documentLevelFusion", documentLevelFusion)
        object.add("quantized", quantized)
        return object.finished()
    }
}

extension SearchFilter {
    func json() -> String? {
        var object = JSONObjectWriter()
        object.add("pathGlobs", pathGlobs)
        object.add("extensions", extensions)
        if let modifiedSince { object.add("modifiedSince", Int(modifiedSince)) }
        if let modifiedBefore { object.add("modifiedBefore", Int(modifiedBefore)) }
        object.add("roots", roots)
        return object.finished()
    }
}

extension SearchServer.Response {
    /// A printed answer read by hand: a JSON object of strings, whole numbers, booleans and nulls only (`protocol`,
    /// `output`, `count`, `model`, `error`, `code`). Nil for anything else (an answer with `hits`, a member this
    /// client does not know, JSON that does not parse), which the client then gives to `JSONDecoder`.
    init?(printedAnswer line: some Collection<UInt8>) {
        guard let members = FlatJSON.object(line) else { return nil }
        self.init()
        self.protocol = nil
        for (key, value) in members {
            switch (key, value) {
            case (_, .null): continue
            case ("protocol", .integer(let number)): self.protocol = number
            case ("count", .integer(let number)): count = number
            case ("output", .string(let text)): output = text
            case ("model", .string(let text)): model = text
            case ("error", .string(let text)): error = text
            case ("code", .string(let text)): code = text
            default: return nil
            }
        }
    }
}

/// Writes one JSON object member by member: keys are the caller's plain identifiers, strings are escaped.
struct JSONObjectWriter {
    private var text = "{"
    private var valid = true

    mutating func add(_ key: String, _ value: String) { add(key, json: JSONObjectWriter.quoted(value)) }
    mutating func add(_ key: String, _ value: Int) { add(key, json: String(value)) }
    mutating func add(_ key: String, _ value: Bool) { add(key, json: value ? "true" : "false") }
    mutating func add(_ key: String, _ value: Double) { add(key, json: value.isFinite ? value.description : nil) }
    /// A Float's own shortest spelling, which reads back as the same Float.
    mutating func add(_ key: String, _ value: Float) { add(key, json: value.isFinite ? value.description : nil) }
    mutating func add(_ key: String, _ values: [String]) {
        add(key, json: "[" + values.map(JSONObjectWriter.quoted).joined(separator: ",") + "]")
    }

    /// A member whose value is already JSON; nil (an unwritable value) makes the whole object nil.
    mutating func add(_ key: String, json value: String?) {
        guard let value else {
            valid = false
            return
        }
        if text.utf8.count > 1 { text += "," }
        text += "\"" + key + "\":" + value
    }

    func finished() -> String? { valid ? text + "}" : nil }

    /// `value` as a JSON string: quote, backslash and the control characters escaped, everything else as it is.
    static func quoted(_ value: String) -> String {
        var result = "\""
        result.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// Reads a JSON object whose members are strings, whole numbers, booleans or null: the client's answer, from a
/// socket, so anything else (nesting, a fraction, bad escapes, invalid UTF-8, trailing bytes) is refused, never
/// guessed at. Fuzzed against `JSONDecoder` (FUZZING.md, `serve-reply`).
enum FlatJSON {
    enum Value: Equatable, Sendable {
        case string(String)
        case integer(Int)
        case bool(Bool)
        case null
    }

    static func object(_ line: some Collection<UInt8>) -> [String: Value]? {
        var reader = Reader(bytes: Array(line))
        return reader.object()
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func object() -> [String: Value]? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [String: Value] = [:]
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

        private mutating func value() -> Value? {
            skipSpace()
            guard at < bytes.count else { return nil }
            switch bytes[at] {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "t"): return word("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return word("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return word("null") ? .null : nil
            default: return integer().map(Value.integer)
            }
        }

        /// `-?(0|[1-9][0-9]*)` that fits an Int, not followed by a fraction or an exponent.
        private mutating func integer() -> Int? {
            let start = at
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            let digits = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            guard at > digits, bytes[digits] != UInt8(ascii: "0") || at == digits + 1 else { return nil }
            if at < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[at]) {
                return nil
            }
            return Int(String(decoding: bytes[start..<at], as: UTF8.self))
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
