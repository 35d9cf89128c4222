import Foundation

/// One option of a command, declared once: the parser accepts exactly the declared options, and `--help`, the
/// shell completions and the man page are all generated from the same declarations, so none can drift.
package struct Option: Sendable, Hashable {
    /// What follows the option's name on the command line, and how it is checked.
    package enum Value: Sendable, Hashable {
        /// Nothing: the option is a flag.
        case none
        /// Any text.
        case text
        /// A path to a file (completed as one).
        case file
        /// A path to a folder (completed as one).
        case folder
        /// A whole number from `min`, up to `max` when there is one.
        case integer(min: Int, max: Int? = nil)
        /// Whole numbers separated by commas, each at least `min`, e.g. `1,2,4`.
        case integers(min: Int)
        /// A number within the range.
        case number(ClosedRange<Double>)
        /// Numbers separated by commas, each within the range, e.g. `10,30,60`.
        case numbers(ClosedRange<Double>)
        /// A byte size like `10M`, `512k`, `2G` or `1048576`.
        case size
        /// One of these words.
        case choice([Choice])
    }

    /// One allowed word of a `.choice` option, with what it means (empty when the word says it all).
    package struct Choice: Sendable, Hashable {
        package var name: String
        package var help: String
        package init(_ name: String, _ help: String = "") {
            self.name = name
            self.help = help
        }
    }

    /// `--limit`.
    package let long: String
    /// `-n`, or nil.
    package let short: String?
    /// What the value is called in help (`N`, `PATH`); nil for a flag.
    package let valueName: String?
    /// One line (wrapped when printed): what the option does.
    package let help: String
    /// What applies without the option, as help shows it (`10`, `$TROVE_CHAT_MODEL, else llama3.2`).
    package let defaultValue: String?
    package let value: Value
    /// May be given more than once, every value kept; otherwise the last one counts.
    package let repeatable: Bool
    /// Accepted but left out of help, completions and the man page (test and benchmark switches).
    package let hidden: Bool

    /// A flag: `Option("--json", help: "print JSON")`.
    package init(_ long: String, short: String? = nil, help: String, hidden: Bool = false) {
        self.init(long, short: short, value: nil, .none, help: help, hidden: hidden)
    }

    /// An option with a value: `Option("--limit", short: "-n", value: "N", .integer(min: 1), help: …, default: "10")`.
    package init(
        _ long: String, short: String? = nil, value valueName: String?, _ value: Value = .text, help: String,
        default defaultValue: String? = nil, repeatable: Bool = false, hidden: Bool = false
    ) {
        precondition(long.hasPrefix("--") && long.count >= 3, "an option's long name looks like --name: \(long)")
        precondition(short.map { $0.count == 2 && $0.hasPrefix("-") && $0 != "--" } ?? true, "bad short name \(short!)")
        precondition((valueName == nil) == (value == .none), "\(long): a value name exactly when it takes a value")
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.value = value
        self.repeatable = repeatable
        self.hidden = hidden
    }

    /// `-h, --help`, which every command has.
    package static let help = Option("--help", short: "-h", help: "show this help")

    /// True for a flag.
    package var isFlag: Bool { value == .none }

    /// Both names as messages give them: `-n/--limit`, or `--json`.
    package var displayName: String { short.map { "\($0)/\(long)" } ?? long }

    /// Both names and the value as help lists them: `-n, --limit N`.
    package var synopsis: String {
        ([short].compactMap { $0 } + [long]).joined(separator: ", ") + (valueName.map { " " + $0 } ?? "")
    }

    /// The allowed words of a `.choice` option, else empty.
    package var choices: [Choice] {
        if case .choice(let choices) = value { return choices }
        return []
    }

    /// The help up to its first clause, for completion menus.
    package var shortHelp: String {
        var text = help
        for stop in ["; ", " (", ": "] {
            if let range = text.range(of: stop) { text = String(text[..<range.lowerBound]) }
        }
        return text
    }
}

/// Options shown together in help under one title (`Ranking`, `Filters`, `Options`).
package struct OptionGroup: Sendable {
    package var title: String
    package var options: [Option]
    package init(_ title: String, _ options: [Option]) {
        self.title = title
        self.options = options
    }
}
