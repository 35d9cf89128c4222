import TroveIngest

/// The print pages an EPUB marks, so that hits in a book cite `p.N` where its publisher gave them: the EPUB 3
/// navigation document's `<nav epub:type="page-list">` links, else the EPUB 2 NCX's `pageList` (`pageTarget`s).
/// A page whose label is not a number (roman front matter) is left out; a list that does not parse only loses the
/// pages, never the book.
enum EPUBPageList {
    /// One print page: its number and where it starts (the spine file, and the id of the marker in it).
    struct Page: Equatable {
        var number: Int
        var entry: String
        var fragment: String?
    }

    /// The pages in the list's order.
    static func pages(navigation: String?, ncx: String?, in archive: inout ZipArchive, limits: ExtractionLimits)
        throws(ExtractionFailure) -> [Page]
    {
        try EPUBPackage.firstNavigation(
            navigation: navigation, ncx: ncx, in: &archive, limits: limits, reader: Reader.init(part:),
            found: { !$0.pages.isEmpty }
        )?.pages ?? []
    }

    /// Reads `<nav epub:type="page-list">…<a href>label</a>` (navigation document) and
    /// `<pageTarget value><navLabel><text>label</text></navLabel><content src/></pageTarget>` (NCX).
    private final class Reader: XMLHandler {
        let part: String
        var pages: [Page] = []
        /// Inside the navigation document's page list.
        var inPageList = false
        var label: String?
        var target: String?
        /// The NCX `pageTarget`'s `value`, its number when the label is not one.
        var value: String?

        init(part: String) { self.part = part }

        func start(_ name: String, namespace: String, attributes: [String: String]) {
            switch name {
            case "nav": inPageList = (attributes["type"] ?? "").split(separator: " ").contains("page-list")
            case "a" where inPageList:
                target = attributes["href"]
                label = ""
            case "pageTarget":
                value = attributes["value"]
                target = nil
            case "navLabel": label = ""
            case "content": target = attributes["src"]
            default: break
            }
        }

        func end(_ name: String, namespace: String) {
            switch name {
            case "a" where inPageList: keep()
            case "pageTarget": keep()
            case "nav": inPageList = false
            default: break
            }
        }

        func text(_ text: String) { label? += text }

        private func keep() {
            defer {
                label = nil
                target = nil
                value = nil
            }
            let written = label.map(TextFlow.squeezed) ?? ""
            guard let target, let number = Int(written) ?? value.flatMap({ Int($0) }), number > 0 else { return }
            let pieces = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            guard let entry = ZipPath.resolve(String(pieces[0]), from: part) else { return }
            let fragment = pieces.count > 1 ? ZipPath.percentDecoded(String(pieces[1])) : nil
            pages.append(Page(number: number, entry: entry, fragment: fragment?.isEmpty == true ? nil : fragment))
        }
    }
}
