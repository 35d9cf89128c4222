import TroveIngest

/// EPUB books: the spine `META-INF/container.xml` → OPF names, each file once in reading order (`#fragment`s
/// dropped, as real books' spines point into files), each chapter read by `HTMLExtractor` and started at a hard
/// boundary, under its table-of-contents title when it has no headings of its own; its print pages, when the book
/// lists them (`EPUBPageList`), as `page N` locators. A book whose chapters are encrypted (DRM) is `encrypted`;
/// obfuscated fonts are not encryption of the text.
package enum EPUBExtractor: DocumentExtractor {
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure)
        -> ExtractedDocument
    {
        var archive = try ZipArchive(bytes, limits: limits)
        let package = try EPUBPackage(in: &archive, limits: limits)
        let encrypted = try EPUBPackage.encryptedEntries(in: &archive, limits: limits)
        if let locked = package.spine.first(where: { encrypted.contains($0.entry) }) {
            throw ExtractionFailure(.encrypted, "chapter \(locked.entry) is encrypted (DRM)")
        }
        let titles = try EPUBTableOfContents.titles(
            navigation: package.navigation, ncx: package.ncx, in: &archive, limits: limits)
        let pages = try EPUBPageList.pages(
            navigation: package.navigation, ncx: package.ncx, in: &archive, limits: limits)
        var builder = DocumentBuilder(extractor: "epub", limits: limits)
        // Where each chapter starts in the document, and where its ids fall in it: the print pages' places.
        var placed: [String: (start: Int, anchors: [String: Int])] = [:]
        for item in package.spine where isChapter(item) {
            guard let bytes = try archive.read(item.entry) else { continue }  // a spine entry missing from the zip
            let chapter: (document: ExtractedDocument, anchors: [String: Int])
            do throws(ExtractionFailure) {
                chapter = try HTMLExtractor.read(bytes, charset: charset(of: bytes), titled: false, limits: limits)
            } catch {
                throw ExtractionFailure(error.kind, "chapter \(item.entry): \(error.detail)")
            }
            guard !chapter.document.lines.isEmpty else { continue }
            builder.blankLine()
            builder.boundary()
            placed[item.entry] = (builder.lineCount, chapter.anchors)
            let title = titles[item.entry].map { [$0] } ?? []
            try builder.append(chapter.document, under: chapter.document.headings.isEmpty ? title : [])
        }
        builder.locate(pageLocators(pages, placed: placed, limit: limits.maxParts))
        return builder.finish()
    }

    /// The locators of the print pages whose place is known: a chapter's start, or the line of the marker its
    /// fragment names (a page whose marker is missing is left out rather than placed wrongly). Past `limit` pages,
    /// the rest are left out.
    private static func pageLocators(
        _ pages: [EPUBPageList.Page], placed: [String: (start: Int, anchors: [String: Int])], limit: Int
    ) -> [ExtractedDocument.Locator] {
        pages.prefix(limit).compactMap { page in
            guard let chapter = placed[page.entry] else { return nil }
            guard let fragment = page.fragment else {
                return ExtractedDocument.Locator(line: chapter.start, kind: .page, number: page.number)
            }
            return chapter.anchors[fragment].map {
                ExtractedDocument.Locator(line: chapter.start + $0, kind: .page, number: page.number)
            }
        }
    }

    /// An EPUB's content documents are UTF-8 or UTF-16 (the EPUB specification): UTF-8 unless a UTF-16 byte-order
    /// mark says otherwise, where libxml2's HTML parser would otherwise assume Latin-1 for a page declaring nothing.
    private static func charset(of bytes: [UInt8]) -> String? {
        bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) ? nil : "UTF-8"
    }

    /// XHTML or HTML content documents; images and SVG pages in a spine carry no text worth indexing.
    private static func isChapter(_ item: EPUBPackage.Item) -> Bool {
        ["application/xhtml+xml", "text/html", "application/x-dtbook+xml", ""].contains(item.mediaType)
            || item.entry.hasSuffix(".xhtml") || item.entry.hasSuffix(".html") || item.entry.hasSuffix(".htm")
    }
}
