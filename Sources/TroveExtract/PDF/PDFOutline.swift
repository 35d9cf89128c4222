/// The outline (bookmarks) of a PDF, read from `pdftohtml -xml`'s `<outline>` elements: nested lists of
/// `<item page="N">title</item>`. A small reader of exactly that shape, not a general XML parser: anything else is
/// skipped, and a malformed outline gives the items read up to there.
package enum PDFOutline {
    /// One outline entry.
    package struct Item: Sendable, Equatable {
        /// The heading text.
        package var title: String
        /// The 1-based physical page it points to.
        package var page: Int
        /// 0 for a top-level entry, 1 for one nested once, …
        package var level: Int

        /// An entry.
        package init(title: String, page: Int, level: Int) {
            self.title = title
            self.page = page
            self.level = level
        }
    }

    /// Deepest nesting kept: deeper entries are placed at this level.
    static let maxLevel = 16

    /// The entries in document order.
    package static func items(_ xml: [UInt8]) -> [Item] {
        let text = String(decoding: xml, as: UTF8.self)
        guard let start = text.range(of: "<outline>") else { return [] }
        var items: [Item] = []
        var depth = 0
        var rest = text[start.lowerBound...]
        while let open = rest.firstIndex(of: "<") {
            rest = rest[open...]
            if rest.hasPrefix("<outline>") {
                depth += 1
                rest = rest.dropFirst("<outline>".count)
            } else if rest.hasPrefix("</outline>") {
                depth -= 1
                rest = rest.dropFirst("</outline>".count)
                if depth <= 0 { break }
            } else if rest.hasPrefix("<item"), let close = rest.firstIndex(of: ">"),
                let end = rest[close...].range(of: "</item>")
            {
                let attributes = rest[rest.startIndex..<close]
                let title = unescape(String(rest[rest.index(after: close)..<end.lowerBound]))
                    .split(whereSeparator: \.isWhitespace).joined(separator: " ")
                if let page = pageNumber(attributes), !title.isEmpty, depth >= 1 {
                    items.append(Item(title: title, page: page, level: min(depth - 1, maxLevel)))
                }
                rest = rest[end.upperBound...]
            } else {
                rest = rest.dropFirst()
            }
        }
        return items
    }

    /// The value of `page="N"` in an item's start tag.
    private static func pageNumber(_ attributes: Substring) -> Int? {
        guard let key = attributes.range(of: "page=\"") else { return nil }
        let digits = attributes[key.upperBound...].prefix(while: \.isNumber)
        return digits.count <= 9 ? Int(digits) : nil
    }

    /// XML's five named entities and numeric references; tags inside a title are dropped.
    static func unescape(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let index = rest.firstIndex(where: { $0 == "&" || $0 == "<" }) {
            result += rest[..<index]
            rest = rest[index...]
            if rest.first == "<" {
                rest = rest.firstIndex(of: ">").map { rest[rest.index(after: $0)...] } ?? ""
                continue
            }
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest.dropFirst()
                continue
            }
            let name = rest[rest.index(after: rest.startIndex)..<semicolon]
            switch name {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let scalar: Unicode.Scalar? =
                    name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                    : name.hasPrefix("#") ? UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init) : nil
                result += scalar.map { String(Character($0)) } ?? String(rest[...semicolon])
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
