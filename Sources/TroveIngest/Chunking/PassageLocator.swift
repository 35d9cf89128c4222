/// Where a passage of an extracted document lies in the original: pages (slides, messages, cells) `first...last`,
/// e.g. a chunk on pages 4–5 of a PDF. Printed after `path:start-end`, which counts lines of the extracted text.
public struct PassageLocator: Sendable, Equatable, Hashable, Codable {
    /// What the numbers count.
    public var kind: LocatorKind
    /// 1-based number where the passage starts.
    public var first: Int
    /// 1-based number where it ends (equal to `first` for one page).
    public var last: Int
    /// True for pages from a word processor's last layout (DOCX, ODT), which may have moved since.
    public var approximate: Bool

    /// A locator from its parts.
    public init(kind: LocatorKind, first: Int, last: Int, approximate: Bool = false) {
        self.kind = kind
        self.first = first
        self.last = last
        self.approximate = approximate
    }

    /// The short form printed after a hit's lines: `p.4`, `p.4–5`, `≈p.3`, `slide 3`, `msg 42`, `cells 7–8`.
    public var label: String {
        let numbers = first == last ? "\(first)" : "\(first)–\(last)"
        let mark = approximate ? "≈" : ""
        switch kind {
        case .page: return mark + "p." + numbers
        case .slide: return mark + (first == last ? "slide " : "slides ") + numbers
        case .message: return mark + (first == last ? "msg " : "msgs ") + numbers
        case .cell: return mark + (first == last ? "cell " : "cells ") + numbers
        }
    }

    /// The URI fragment that opens the original at the passage's start: `page=4`, `slide=3`, `msg=42`, `cell=7`.
    public var fragment: String { "\(kind.fragmentKey)=\(first)" }

    /// The locator region(s) lines `lines` (0-based) of a document fall in, given its sorted `locators`; nil when
    /// no locator covers them.
    package static func covering(_ lines: ClosedRange<Int>, in locators: [ExtractedDocument.Locator]) -> Self? {
        // The last region starting at or before a line holds it.
        func region(at line: Int) -> Int? {
            var low = 0
            var high = locators.count
            while low < high {
                let middle = (low + high) / 2
                if locators[middle].line <= line { low = middle + 1 } else { high = middle }
            }
            return low > 0 ? low - 1 : nil
        }
        guard let end = region(at: lines.upperBound) else { return nil }
        // A passage that starts before the first region starts in it.
        let start = region(at: lines.lowerBound) ?? 0
        let opening = locators[start]
        let closing = locators[end]
        let approximate = locators[start...end].contains { $0.approximate }
        guard closing.kind == opening.kind else {
            return PassageLocator(
                kind: opening.kind, first: opening.number, last: opening.number, approximate: approximate)
        }
        return PassageLocator(
            kind: opening.kind, first: min(opening.number, closing.number), last: max(opening.number, closing.number),
            approximate: approximate)
    }
}
