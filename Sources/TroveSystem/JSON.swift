import Foundation

/// Trove's one JSON value: parsed exactly (integers stay integers, `true` is not `1`), written back with sorted keys;
/// what `trove mcp`'s JSON-RPC messages carry, and what `FlatJSON` reads `trove serve`'s answers into. Strings are escaped by `JSONEncoder`, so document text with quotes, newlines or
/// control characters always goes out as data inside one line.
package enum JSON: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            // Digits past a Double's precision can round a fraction away (11111111111111111.1 is 11111111111111112):
            // such a whole number is an integer, as it reads once written back (found by the jsonrpc fuzz target).
            self = Int64(exactly: value).map(JSON.integer) ?? .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value.isFinite ? value : 0)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; nil for anything else or a missing key.
    package subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    package var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    package var objectValue: [String: JSON]? { if case .object(let value) = self { value } else { nil } }
    package var arrayValue: [JSON]? { if case .array(let value) = self { value } else { nil } }
    package var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }

    /// A number as a whole number, when it is one.
    package var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let value) where value == value.rounded() && abs(value) < 9e15: Int64(value)
        default: nil
        }
    }

    /// Any number.
    package var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// One line of JSON text, keys sorted; never contains a raw newline.
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSON value cannot fail: every case maps to a JSON type, non-finite numbers are written as 0.
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    /// Parses JSON text; nil when it is not valid JSON.
    package static func parse(_ data: Data) -> JSON? {
        try? JSONDecoder().decode(JSON.self, from: data)
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int64) { self = .integer(value) }
    package init(arrayLiteral elements: JSON...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
    package init(nilLiteral: ()) { self = .null }
}
