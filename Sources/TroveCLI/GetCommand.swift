import Foundation
import TroveKit
import TroveOutput

/// `trove get PATH[:START-END | #page=N]`: a document's text as the index holds it, the lines hits cite.
struct GetCommand: Command {
    static let name = "get"
    static let abstract = "Print an indexed document, or the lines or page a hit cites."
    static let usage = "trove get [options] PATH[:START-END | #page=N]"
    static let discussion = """
        Prints the text the index holds for PATH (absolute, or relative to an indexed folder): for a PDF,
        DOCX, HTML, … file, the extracted text whose lines search hits cite. PATH:120-138 prints those lines;
        PATH#page=4 (or #slide=3, #msg=42, #cell=7) prints what was read from that page. The file itself is
        never read.
        """
    static let optionGroups = [OptionGroup("Options", [numbers, json] + CommonOptions.options)]
    static let epilogue = """
        Examples:
          trove get notes/deploy.md:20-34
          trove get papers/report.pdf#page=4
        """
    static let operands = Option.Value.file

    static let numbers = Option("--line-numbers", short: "-n", help: "put each line's number before it")
    static let json = Option("--json", help: "print the path, the line range and the lines as JSON")

    var common: CommonOptions
    var address: String
    var lines: ClosedRange<Int>?
    var numbers: Bool
    var json: Bool

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        numbers = arguments.flag(Self.numbers)
        json = arguments.flag(Self.json)
        guard arguments.operands.count == 1, let operand = arguments.operands.first else {
            throw UsageError("name one document, e.g. trove get notes/deploy.md:20-34 or trove get report.pdf#page=4")
        }
        (address, lines) = try Self.split(operand)
    }

    /// `path:20-34` → (`path`, 20...34); `path:20` → (`path`, 20...20); anything else is the path whole.
    static func split(_ operand: String) throws -> (String, ClosedRange<Int>?) {
        guard let colon = operand.lastIndex(of: ":") else { return (operand, nil) }
        let range = operand[operand.index(after: colon)...].split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(range.count), let start = Int(range[0]), let end = Int(range.last!) else {
            return (operand, nil)
        }
        guard start >= 1, end >= start else {
            throw UsageError("lines \(start)-\(end) are no range: give START-END with 1 ≤ START ≤ END")
        }
        return (String(operand[..<colon]), start...end)
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, environment: console.environment)
        let index = try settings.openIndex()
        let path = address.hasPrefix("/") || address.hasPrefix("~") ? IndexLocation.expandingTilde(
            address, environment: console.environment) : FileManager.default.currentDirectoryPath + "/" + address
        let document: DocumentText
        do {
            document = try await index.text(path: path, lines: lines)
        } catch let error as DocumentError where !address.hasPrefix("/") {
            // A path relative to an indexed folder rather than to the current one.
            guard let relative = try? await index.text(path: address, lines: lines) else { throw error }
            document = relative
        }
        if json {
            console.print(try JSONOutput.encode(GetOutput(document)))
            return ExitCode.success
        }
        for line in document.lines {
            let text = console.safe(line.text, keepingNewlines: false)
            console.print(numbers ? "\(line.number)\t\(text)" : text)
        }
        return ExitCode.success
    }
}

/// The `--json` shape of `trove get`.
struct GetOutput: Encodable {
    var path: String
    var startLine: Int
    var endLine: Int
    var lineCount: Int
    var text: String

    init(_ document: DocumentText) {
        path = document.path
        startLine = document.lines.first?.number ?? 0
        endLine = document.lines.last?.number ?? 0
        lineCount = document.lineCount
        text = document.text
    }

    enum CodingKeys: String, CodingKey {
        case path, text
        case startLine = "start_line"
        case endLine = "end_line"
        case lineCount = "line_count"
    }
}
