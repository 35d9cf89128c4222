import Foundation

/// Any JSON value: the shape of tool parameters, tool-call arguments, JSON schemas and model parameters.
public enum JSONValue: Codable, Sendable, Equatable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number; integers round-trip exactly up to 2^53.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value; whole numbers are written without a fraction.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 9e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string, when this is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, when this is one.
    public var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
    /// The object, when this is one.
    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    /// The member `key` of an object.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// `"text"`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `42`.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// `0.5`.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `true`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `[1, "a"]`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `["type": "object"]`.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
    /// `nil`.
    public init(nilLiteral: ()) { self = .null }
}
