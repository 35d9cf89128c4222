import Foundation

/// Everything a command tells about itself: its help, completions and man page entry are rendered from this.
package struct CommandSpec: Sendable {
    /// The word after the program's name (`search`).
    package var name: String
    /// One line for the command list.
    package var abstract: String
    /// The usage line, e.g. `trove search [options] QUERY…`.
    package var usage: String
    /// Paragraphs before the options.
    package var discussion: String
    package var groups: [OptionGroup]
    /// Paragraphs after the options: notes, examples.
    package var epilogue: String
    /// What the operands are, for completion: `.folder`, `.file`, `.choice`, or `.text`/`.none` (nothing to offer).
    package var operands: Option.Value

    package init(
        name: String, abstract: String, usage: String, discussion: String = "", groups: [OptionGroup],
        epilogue: String = "", operands: Option.Value = .none
    ) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.discussion = discussion
        self.groups = groups
        self.epilogue = epilogue
        self.operands = operands
    }

    /// Every option the parser accepts, `-h/--help` included.
    package var options: [Option] {
        let declared = groups.flatMap(\.options)
        return declared.contains(.help) ? declared : declared + [.help]
    }

    /// The groups as help shows them: hidden options left out, `-h, --help` at the end of the last group.
    package var visibleGroups: [OptionGroup] {
        var shown = groups.map { OptionGroup($0.title, $0.options.filter { !$0.hidden }) }.filter {
            !$0.options.isEmpty
        }
        if !groups.contains(where: { $0.options.contains(.help) }) {
            if shown.isEmpty { shown.append(OptionGroup("Options", [])) }
            shown[shown.count - 1].options.append(.help)
        }
        return shown
    }

    /// The `--help` text.
    package var helpText: String {
        var parts = ["\(abstract)", "Usage: \(usage)"]
        if !discussion.isEmpty { parts.append(discussion) }
        for group in visibleGroups {
            parts.append("\(group.title):\n" + group.options.map(HelpText.entry).joined(separator: "\n"))
        }
        if !epilogue.isEmpty { parts.append(epilogue) }
        return parts.joined(separator: "\n\n")
    }
}

/// Plain-text layout of option help: names in a column, the help wrapped beside them.
package enum HelpText {
    /// Where the help text of an option starts.
    static let column = 22
    /// Lines are wrapped to this many characters.
    static let width = 116

    /// `  -n, --limit N       how many results (default: 10)`, wrapped, with one line per choice that has help.
    package static func entry(_ option: Option) -> String {
        let names = "  " + option.synopsis
        var lines = wrap(sentence(option), width: width - column)
        let indent = String(repeating: " ", count: column)
        var head: String
        if names.count <= column - 2 {
            head = names.padding(toLength: column, withPad: " ", startingAt: 0) + lines.removeFirst()
        } else {
            head = names
        }
        var result = [head] + lines.map { indent + $0 }
        let described = option.choices.filter { !$0.help.isEmpty }
        if !described.isEmpty {
            let width = (option.choices.map(\.name.count).max() ?? 0) + 2
            for choice in option.choices {
                let label = choice.name.padding(toLength: width, withPad: " ", startingAt: 0)
                let text = wrap(choice.help, width: Self.width - column - 2 - width)
                result.append(indent + "  " + label + text[0])
                result += text.dropFirst().map { indent + "  " + String(repeating: " ", count: width) + $0 }
            }
        }
        return result.joined(separator: "\n")
    }

    /// The help with what is generated from the declaration: the allowed words (when none is explained one by
    /// one), the default, and "repeatable".
    package static func sentence(_ option: Option) -> String {
        var text = option.help
        let choices = option.choices
        if !choices.isEmpty, choices.allSatisfy({ $0.help.isEmpty }) {
            let words = choices.map(\.name)
            text += ": " + words.dropLast().joined(separator: ", ") + (words.count > 1 ? " or " : "") + words.last!
        }
        var notes: [String] = []
        if let value = option.defaultValue { notes.append("default: \(value)") }
        if option.repeatable { notes.append("repeatable") }
        if !notes.isEmpty { text += " (" + notes.joined(separator: "; ") + ")" }
        return text
    }

    /// Splits `text` into lines of at most `width` characters at spaces.
    package static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines
    }
}
