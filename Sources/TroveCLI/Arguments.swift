/// A mistake in how a command was called: printed with the usage line, exit 64.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The words after the command name, consumed option by option; what is left are the positional arguments.
/// Accepts `--name value`, `--name=value`, `-n value`, `-n5`, and `--` to end options.
struct Arguments {
    private var items: [String]

    init(_ items: [String]) { self.items = items }

    /// Index of `--`, past which nothing is an option.
    private var optionsEnd: Int { items.firstIndex(of: "--") ?? items.count }

    /// True when any of `names` is present (all occurrences are consumed).
    mutating func flag(_ names: String...) -> Bool {
        var found = false
        var index = 0
        while index < optionsEnd {
            if names.contains(items[index]) {
                items.remove(at: index)
                found = true
            } else {
                index += 1
            }
        }
        return found
    }

    /// Every value given to a repeatable option, in order.
    mutating func values(_ names: String...) throws -> [String] {
        try values(names)
    }

    /// The last value given to an option, or nil.
    mutating func value(_ names: String...) throws -> String? {
        try values(names).last
    }

    private mutating func values(_ names: [String]) throws -> [String] {
        var found: [String] = []
        var index = 0
        while index < optionsEnd {
            let item = items[index]
            if names.contains(item) {
                guard index + 1 < optionsEnd else { throw UsageError("\(item) needs a value") }
                found.append(items[index + 1])
                items.removeSubrange(index...index + 1)
            } else if let name = names.first(where: { $0.hasPrefix("--") && item.hasPrefix($0 + "=") }) {
                found.append(String(item.dropFirst(name.count + 1)))
                items.remove(at: index)
            } else if let name = names.first(where: { $0.count == 2 && !$0.hasPrefix("--") && item.hasPrefix($0) }),
                item.count > 2, !item.hasPrefix("--")
            {
                found.append(String(item.dropFirst(name.count)))
                items.remove(at: index)
            } else {
                index += 1
            }
        }
        return found
    }

    /// The arguments that are not options; an unknown option is an error.
    mutating func positionals() throws -> [String] {
        var result: [String] = []
        var pastOptions = false
        for item in items {
            if pastOptions {
                result.append(item)
            } else if item == "--" {
                pastOptions = true
            } else if item.hasPrefix("-"), item != "-", Double(item) == nil {
                throw UsageError("unknown option '\(item)'")
            } else {
                result.append(item)
            }
        }
        items = []
        return result
    }
}

extension Arguments {
    /// A whole number at least `minimum`, or nil when the option is absent.
    mutating func integer(_ names: String..., minimum: Int) throws -> Int? {
        guard let text = try values(names).last else { return nil }
        guard let number = Int(text), number >= minimum else {
            throw UsageError("\(names.joined(separator: "/")) expects a whole number of at least \(minimum), got '\(text)'")
        }
        return number
    }

    /// A cosine similarity, from -1 to 1, or nil when the option is absent.
    mutating func cosine(_ name: String) throws -> Float? {
        guard let text = try values([name]).last else { return nil }
        guard let score = Float(text), score >= -1, score <= 1 else {
            throw UsageError("\(name) expects a number from -1 to 1, got '\(text)'")
        }
        return score
    }

    /// A byte size like `10M`, `512k`, `2G` or `1048576`.
    mutating func byteSize(_ name: String) throws -> Int64? {
        guard let text = try values([name]).last else { return nil }
        let units: [Character: Int64] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
        var digits = text.lowercased()
        if digits.hasSuffix("b") { digits.removeLast() }
        var factor: Int64 = 1
        if let unit = digits.last, let scale = units[unit] {
            factor = scale
            digits.removeLast()
        }
        guard let number = Int64(digits), number > 0 else {
            throw UsageError("\(name) expects a size like 10M, 512k or 1048576, got '\(text)'")
        }
        return number * factor
    }
}
