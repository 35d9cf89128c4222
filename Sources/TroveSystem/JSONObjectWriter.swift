/// Writes one JSON object member by member, by hand: keys are the caller's plain identifiers, strings are escaped.
/// `trove search`'s one-shot client writes its request with it, not with `JSONEncoder`, whose first use in a process
/// cost ~1 ms (BENCHMARKS.md#serve-prints-for-the-client).
package struct JSONObjectWriter {
    private var text = "{"
    private var valid = true

    /// An object with no member yet.
    package init() {}

    /// A member whose value is a string.
    package mutating func add(_ key: String, _ value: String) { add(key, json: JSONObjectWriter.quoted(value)) }
    /// A member whose value is a whole number.
    package mutating func add(_ key: String, _ value: Int) { add(key, json: String(value)) }
    /// A member whose value is a boolean.
    package mutating func add(_ key: String, _ value: Bool) { add(key, json: value ? "true" : "false") }
    /// A member whose value is a number; a non-finite one makes the object nil.
    package mutating func add(_ key: String, _ value: Double) { add(key, json: value.isFinite ? value.description : nil) }
    /// A Float's own shortest spelling, which reads back as the same Float.
    package mutating func add(_ key: String, _ value: Float) { add(key, json: value.isFinite ? value.description : nil) }
    /// A member whose value is an array of strings.
    package mutating func add(_ key: String, _ values: [String]) {
        add(key, json: "[" + values.map(JSONObjectWriter.quoted).joined(separator: ",") + "]")
    }

    /// A member whose value is already JSON; nil (an unwritable value) makes the whole object nil.
    package mutating func add(_ key: String, json value: String?) {
        guard let value else {
            valid = false
            return
        }
        if text.utf8.count > 1 { text += "," }
        text += "\"" + key + "\":" + value
    }

    /// The object's text; nil when a member could not be written.
    package func finished() -> String? { valid ? text + "}" : nil }

    /// `value` as a JSON string: quote, backslash and the control characters escaped, everything else as it is.
    package static func quoted(_ value: String) -> String {
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
