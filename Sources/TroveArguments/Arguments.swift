import TroveSystem

/// A mistake in how a command was called: printed with the usage line, exit 64.
package struct UsageError: TroveError, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }

    /// Who is at fault: the command line (exit 64).
    package var fault: Fault { .usage }
}

/// The words after a command's name, parsed against its declared options; the rest are its operands.
///
/// Accepts `--name value`, `--name=value`, `-n value`, `-n5`, bundled short flags (`-qv`) and `--` to end options.
/// An undeclared option is an error with a did-you-mean; a value option never takes the next option as its value
/// (`--path --json` is an error naming `--path`; a value that starts with `-` is written `--path=-x`); every value
/// is checked against its declared kind (range, choice, size) before the command sees it.
package struct Arguments: Sendable {
    /// The options this command declared; reading any other is a programming error.
    package let declared: [Option]
    /// Values given, by long name, in order.
    private var values: [String: [String]] = [:]
    /// The words that are not options, in order.
    package private(set) var operands: [String] = []

    package init(_ words: [String], options: [Option]) throws {
        declared = options
        var pending = words[...]
        var pastOptions = false
        while let word = pending.popFirst() {
            // `-0` is a number unless the command declares it (`-0/--null`).
            let declaredShort = options.contains { $0.short == word }
            if pastOptions || !(declaredShort || Self.looksLikeOption(word)) {
                operands.append(word)
                continue
            }
            if word == "--" {
                pastOptions = true
                continue
            }
            var name = word
            var attached: String?
            if word.hasPrefix("--") {
                if let equals = word.firstIndex(of: "=") {
                    name = String(word[..<equals])
                    attached = String(word[word.index(after: equals)...])
                }
            } else if word.count > 2 {
                name = String(word.prefix(2))
                attached = String(word.dropFirst(2))
            }
            guard let option = options.first(where: { $0.long == name || $0.short == name }) else {
                // `-foo` is named whole: it is more likely a word meant as an operand than `-f` with a value.
                throw UsageError(Self.unknown(word.hasPrefix("--") ? name : word, among: options))
            }
            if option.isFlag {
                if let attached {
                    // `-qv` is `-q -v`; `--json=yes` is a mistake.
                    guard !word.hasPrefix("--") else { throw UsageError("\(name) takes no value, got '\(word)'") }
                    pending.insert("-" + attached, at: pending.startIndex)
                }
                values[option.long, default: []].append("")
                continue
            }
            let value: String
            if let attached {
                value = attached
            } else {
                guard let next = pending.popFirst() else { throw UsageError("\(name) needs a value") }
                if next == "--" || Self.looksLikeOption(next) {
                    throw UsageError(
                        "\(name) needs a value (\(option.valueName ?? "")), got the option '\(next)' — write "
                            + "\(option.long)=VALUE for a value that starts with -")
                }
                value = next
            }
            try Self.check(value, for: option)
            values[option.long, default: []].append(value)
        }
    }

    /// A word is an option when it starts with `-` and is neither `-` (standard input) nor a number (`-0.5`).
    private static func looksLikeOption(_ word: String) -> Bool {
        word.hasPrefix("-") && word != "-" && Double(word) == nil
    }

    private static func unknown(_ name: String, among options: [Option]) -> String {
        let visible = options.filter { !$0.hidden }
        let names = visible.map(\.long) + visible.compactMap(\.short)
        if let near = Suggestion.closest(to: name, among: names) {
            return "unknown option '\(name)' — did you mean '\(near)'?"
        }
        if !name.hasPrefix("--"), name.count > 2 {
            return "unknown option '\(name)' — an argument that starts with - goes after --, as in: -- \(name)"
        }
        return "unknown option '\(name)'"
    }

    /// Throws the message a bad value gets: what was expected, and what was given.
    private static func check(_ text: String, for option: Option) throws {
        let name = option.displayName
        switch option.value {
        case .none, .text, .file, .folder:
            break
        case .integer(let min, let max):
            guard let number = Int(text), number >= min, number <= max ?? .max else {
                let range = max.map { "from \(min) to \($0)" } ?? "of at least \(min)"
                throw UsageError("\(name) expects a whole number \(range), got '\(text)'")
            }
        case .integers(let min):
            guard integers(text, min: min) != nil else {
                throw UsageError("\(name) expects whole numbers of at least \(min) separated by commas, got '\(text)'")
            }
        case .number(let range):
            guard let number = Double(text), number.isFinite, range.contains(number) else {
                throw UsageError("\(name) expects a number \(describe(range)), got '\(text)'")
            }
        case .numbers(let range):
            guard numbers(text, in: range) != nil else {
                throw UsageError("\(name) expects numbers \(describe(range)) separated by commas, got '\(text)'")
            }
        case .size:
            guard let (number, unit) = sizeParts(text) else {
                throw UsageError("\(name) expects a size like 10M, 512k or 1048576, got '\(text)'")
            }
            guard !number.multipliedReportingOverflow(by: unit.factor).overflow else {
                throw UsageError("\(name) '\(text)' is too large: at most \(Int64.max / unit.factor)\(unit.name)")
            }
        case .choice(let choices):
            let words = choices.map(\.name)
            guard words.contains(text) else {
                let list = words.dropLast().joined(separator: ", ") + (words.count > 1 ? " or " : "") + words.last!
                let hint = Suggestion.closest(to: text, among: words).map { " — did you mean '\($0)'?" } ?? ""
                throw UsageError("\(name) expects \(list), got '\(text)'\(hint)")
            }
        }
    }

    /// `from 0 to 2`, or `of at least 0` when there is no upper bound.
    private static func describe(_ range: ClosedRange<Double>) -> String {
        range.upperBound.isFinite
            ? "from \(format(range.lowerBound)) to \(format(range.upperBound))"
            : "of at least \(format(range.lowerBound))"
    }

    /// `1` for 1.0, `0.25` for 0.25.
    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    static func integers(_ text: String, min: Int) -> [Int]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ ($0 ?? .min) >= min }) else { return nil }
        return parts.map { $0! }
    }

    static func numbers(_ text: String, in range: ClosedRange<Double>) -> [Double]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0.map(range.contains) ?? false }) else { return nil }
        return parts.map { $0! }
    }

    /// `10M` → (10, M: 2^20); a trailing `b` is allowed. Nil unless the number is above 0.
    static func sizeParts(_ text: String) -> (Int64, (name: String, factor: Int64))? {
        let units: [Character: Int64] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
        var digits = text.lowercased()
        if digits.hasSuffix("b") { digits.removeLast() }
        var unit = (name: "", factor: Int64(1))
        if let letter = digits.last, let scale = units[letter] {
            unit = (String(letter).uppercased(), scale)
            digits.removeLast()
        }
        guard let number = Int64(digits), number > 0 else { return nil }
        return (number, unit)
    }

    static func byteSize(_ text: String) -> Int64? {
        guard let (number, unit) = sizeParts(text) else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: unit.factor)
        return overflow ? nil : product
    }

    /// Every value given to `option`, in order (already checked against its kind).
    package func values(_ option: Option) -> [String] {
        precondition(declared.contains(option), "\(option.long) is read but was not declared")
        return values[option.long] ?? []
    }

    /// The last value given to `option`, or nil.
    package func value(_ option: Option) -> String? { values(option).last }

    /// True when the flag was given.
    package func flag(_ option: Option) -> Bool { !values(option).isEmpty }

    /// A `.integer` option's value.
    package func integer(_ option: Option) -> Int? { value(option).flatMap { Int($0) } }

    /// A `.integers` option's values.
    package func integers(_ option: Option) -> [Int]? { value(option).flatMap { Self.integers($0, min: .min) } }

    /// A `.number` option's value.
    package func number(_ option: Option) -> Double? { value(option).flatMap { Double($0) } }

    /// A `.numbers` option's values.
    package func numbers(_ option: Option) -> [Double]? {
        value(option).flatMap { Self.numbers($0, in: -Double.infinity...Double.infinity) }
    }

    /// A `.size` option's value in bytes.
    package func byteSize(_ option: Option) -> Int64? { value(option).flatMap(Self.byteSize) }

    /// A `.choice` option's value as the enumeration whose raw values are its words.
    package func choice<Word: RawRepresentable>(_ option: Option, as type: Word.Type) -> Word?
    where Word.RawValue == String {
        value(option).flatMap(Word.init(rawValue:))
    }

    /// The operands (for call sites written when unknown options were found late).
    package func positionals() -> [String] { operands }
}
