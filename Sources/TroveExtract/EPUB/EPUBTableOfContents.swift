import TroveIngest

/// Chapter titles from an EPUB's table of contents: the first label that points at each file (`#fragment` dropped),
/// from the EPUB 3 navigation document's `<nav epub:type="toc">` links or the EPUB 2 NCX's `navPoint`s.
enum EPUBTableOfContents {
    /// Entry name → title. A table of contents that does not parse only loses the titles, never the book.
    static func titles(navigation: String?, ncx: String?, in archive: inout ZipArchive, limits: ExtractionLimits)
        throws(ExtractionFailure) -> [String: String]
    {
        try EPUBPackage.firstNavigation(
            navigation: navigation, ncx: ncx, in: &archive, limits: limits, reader: Reader.init(part:),
            found: { !$0.titles.isEmpty }
        )?.titles ?? [:]
    }

    /// Reads `<a href>label</a>` (navigation document) and `<navLabel><text>label</text></navLabel><content src>`
    /// (NCX): a label is kept for the first target of each file.
    private final class Reader: XMLHandler {
        let part: String
        var titles: [String: String] = [:]
        var label: String?
        var href: String?
        /// Inside the navigation document's table of contents (its other `nav`s, landmarks and page lists, are not).
        var inTOC = false
        var isNCX = false

        init(part: String) { self.part = part }

        func start(_ name: String, namespace: String, attributes: [String: String]) {
            switch name {
            case "nav": inTOC = (attributes["type"] ?? "").split(separator: " ").contains("toc")
            case "ncx": isNCX = true
            case "a" where inTOC:
                href = attributes["href"]
                label = ""
            case "navLabel": label = ""
            case "content" where isNCX: keep(attributes["src"])
            default: break
            }
        }

        func end(_ name: String, namespace: String) {
            switch name {
            case "a" where inTOC: keep(href)
            case "nav": inTOC = false
            default: break
            }
        }

        func text(_ text: String) { label? += text }

        private func keep(_ target: String?) {
            defer { label = nil }
            guard let target, let entry = ZipPath.resolve(target, from: part), titles[entry] == nil,
                let title = label.map(TextFlow.squeezed), !title.isEmpty
            else { return }
            titles[entry] = title
        }
    }
}
