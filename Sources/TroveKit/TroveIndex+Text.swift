import Foundation
import TroveIngest
import TroveStore
import TroveSystem

/// A document's indexed text, or a line range of it, with line numbers.
public struct DocumentText: Sendable, Equatable {
    /// One numbered line.
    public struct Line: Sendable, Equatable {
        /// 1-based, as an editor counts.
        public var number: Int
        public var text: String
    }

    /// The document's absolute path.
    public var path: String
    /// The indexed folder it belongs to.
    public var rootPath: String
    public var relativePath: String
    /// The lines returned, in order (all of them when no range was asked for).
    public var lines: [Line]
    /// The document's last indexed line; trailing blank lines are not stored.
    public var lineCount: Int
    /// Modification time when indexed, in nanoseconds since 1970.
    public var modifiedNanoseconds: Int64

    /// The lines joined by newlines, without numbers.
    public var text: String { lines.map(\.text).joined(separator: "\n") }
}

/// A `get` that cannot be answered: a path outside the index, or lines past the end.
public struct DocumentError: TroveError, Equatable {
    /// A lowercase sentence saying what to do.
    public var message: String
    public init(_ message: String) { self.message = message }
}

extension TroveIndex {
    /// The text of the indexed document at `path` (absolute, or relative to an indexed folder), whole or lines
    /// `lines` of it, as the index holds it: the same text and line numbers that search hits carry. A path outside
    /// the indexed folders is refused; the file system is never read, so nothing but indexed text can come back.
    ///
    /// A path may end in a locator fragment, `report.pdf#page=4` (`#slide=3`, `#msg=42`, `#cell=7`): the lines of that
    /// page of the extracted text, as hits cite it.
    public func text(path address: String, lines: ClosedRange<Int>? = nil) throws -> DocumentText {
        let (path, fragment) = Self.splitFragment(address)
        let roots = try store.roots().map(\.path)
        let candidates = Self.locate(path, roots: roots)
        guard let first = candidates.first else {
            throw DocumentError(
                "\(path) is outside the indexed folders (\(roots.joined(separator: ", "))) — "
                    + "give a path that search returned")
        }
        var found: StoredDocumentText?
        for candidate in candidates where found == nil {
            found = try store.documentText(rootPath: candidate.root, path: candidate.relative)
        }
        guard let stored = found else {
            throw DocumentError(
                "no indexed document at \(Self.join(first.root, first.relative)) — search for it, or run: trove index")
        }
        let (root, relative) = (stored.rootPath, stored.path)
        var lines = lines
        if let (kind, number) = fragment {
            lines = try Self.lines(of: stored, kind: kind, number: number, shown: Self.join(root, relative))
        }
        let numbered = Chunker.rendition(of: stored.chunks.map { ($0.startLine, $0.endLine, $0.text) })
        let range = lines ?? 1...max(1, numbered.count)
        guard range.lowerBound >= 1 else { throw DocumentError("line numbers start at 1, got \(range.lowerBound)") }
        guard range.lowerBound <= max(1, numbered.count) else {
            throw DocumentError(
                "\(Self.join(root, relative)) has \(numbered.count) indexed lines; line \(range.lowerBound) is past the end"
            )
        }
        let upper = min(range.upperBound, numbered.count)
        let selected =
            numbered.isEmpty
            ? [] : (range.lowerBound...upper).map { DocumentText.Line(number: $0, text: numbered[$0 - 1]) }
        return DocumentText(
            path: Self.join(root, relative), rootPath: root, relativePath: relative, lines: selected,
            lineCount: numbered.count, modifiedNanoseconds: stored.modifiedNanoseconds)
    }

    /// `report.pdf#page=4` → (`report.pdf`, (.page, 4)); the path unchanged, with no fragment, when it does not end
    /// in a locator fragment.
    static func splitFragment(_ address: String) -> (path: String, fragment: (LocatorKind, Int)?) {
        guard let hash = address.lastIndex(of: "#") else { return (address, nil) }
        let parts = address[address.index(after: hash)...].split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let kind = LocatorKind.allCases.first(where: { $0.fragmentKey == parts[0] }),
            let number = Int(parts[1]), number >= 1
        else { return (address, nil) }
        return (String(address[..<hash]), (kind, number))
    }

    /// The lines of `document` on page (slide, message, cell) `number`: from the first to the last passage located
    /// there. Refused, saying why, when the document has no such locators or that page holds no text.
    static func lines(of document: StoredDocumentText, kind: LocatorKind, number: Int, shown: String) throws
        -> ClosedRange<Int>
    {
        let located = document.chunks.compactMap { chunk in
            chunk.locator.flatMap(PassageLocator.init(stored:)).map { (chunk, $0) }
        }.filter { $0.1.kind == kind }
        let noun = kind == .message ? "message" : kind.rawValue
        guard let highest = located.map(\.1.last).max() else {
            throw DocumentError("\(shown) has no \(noun)s in the index — give lines instead, e.g. \(shown):1-40")
        }
        let on = located.filter { $0.1.first <= number && number <= $0.1.last }.map(\.0)
        guard let start = on.map(\.startLine).min(), let end = on.map(\.endLine).max() else {
            throw DocumentError(
                number > highest
                    ? "\(shown) has \(highest) \(noun)s with text; \(noun) \(number) is past the end"
                    : "\(noun) \(number) of \(shown) holds no text")
        }
        return start...end
    }

    /// The indexed folders and relative paths `path` may name, deepest folder first; empty when it is under none.
    /// `..` is resolved first, so a path cannot climb out of a folder.
    static func locate(_ path: String, roots: [String]) -> [(root: String, relative: String)] {
        roots.sorted { $0.count > $1.count }.compactMap { root in
            let full = URL(fileURLWithPath: path.hasPrefix("/") ? path : join(root, path)).standardizedFileURL.path
            let prefix = root.hasSuffix("/") ? root : root + "/"
            guard full.hasPrefix(prefix), full.count > prefix.count else { return nil }
            return (root, String(full.dropFirst(prefix.count)))
        }
    }

    static func join(_ root: String, _ relative: String) -> String {
        root.hasSuffix("/") ? root + relative : root + "/" + relative
    }
}
