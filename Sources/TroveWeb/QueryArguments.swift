import TroveSystem

/// A query string's arguments as the JSON arguments of `trove mcp`'s tools (which check them).
enum QueryArguments {
    /// Query arguments as a tool's JSON arguments: the tools' whole-number, number and true/false arguments typed
    /// (a value that is none stays text, for the tool to refuse), `lists` gathered into arrays, empty values left out;
    /// an argument the tool does not take is its error to report.
    static func json(_ query: [(name: String, value: String)], lists: Set<String>) -> JSON {
        var arguments: [String: JSON] = [:]
        for (name, value) in query where !value.isEmpty {
            switch name {
            case _ where lists.contains(name):
                arguments[name] = .array((arguments[name]?.arrayValue ?? []) + [.string(value)])
            case "limit", "start_line", "end_line":
                arguments[name] = Int64(value).map(JSON.integer) ?? .string(value)
            case "min_score":
                arguments[name] = Double(value).map(JSON.number) ?? .string(value)
            case "all_chunks", "extractive":
                arguments[name] = value == "true" ? .bool(true) : value == "false" ? .bool(false) : .string(value)
            default:
                arguments[name] = .string(value)
            }
        }
        return .object(arguments)
    }
}
