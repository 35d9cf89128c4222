import TroveIngest

// Fuzz target: the readers of poppler's output — pdftotext's text (pages at form feeds) and pdftohtml -xml's
// outline — and the document built from both. The input is the text, a NUL byte, then the XML.
// Oracle: pages are the form-feed-separated pieces (a last piece only when it holds text); the outline's items
// have a title without markup, a page and a level within bounds; the document keeps every page's lines in order,
// its locators count pages upwards within 1...pages, every boundary, heading and locator points at a line of it
// (sorted), it is damaged only past a cap, and building it is deterministic.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let text = Array(bytes[..<split])
    let xml = split < bytes.count ? Array(bytes[(split + 1)...]) : []

    let pages = PDFText.pages(text)
    let feeds = text.filter { $0 == 0x0C }.count
    precondition(pages.count == feeds || pages.count == feeds + 1, "\(pages.count) pages for \(feeds) form feeds")
    for lines in pages {
        precondition(lines.first.map { !$0.allSatisfy(\.isWhitespace) } ?? true, "a page starts with a blank line")
        precondition(lines.last.map { !$0.allSatisfy(\.isWhitespace) } ?? true, "a page ends with a blank line")
    }

    let items = PDFOutline.items(xml)
    for item in items {
        precondition(!item.title.isEmpty && !item.title.contains("<"), "outline title '\(item.title)'")
        precondition(item.level >= 0 && item.level <= 16 && item.page >= 0, "outline item \(item)")
    }

    var limits = ExtractionLimits()
    limits.maxParts = 50
    limits.maxOutputBytes = 1 << 16
    let built: ExtractedDocument
    do throws(ExtractionFailure) {
        built = try PDFText.document(pages: pages, outline: items, extractor: "fuzz", limits: limits)
    } catch {
        precondition(error.kind == .damaged, "failure \(error)")
        let bytes = pages.joined().reduce(0) { $0 + $1.utf8.count + 1 }
        precondition(pages.count > limits.maxParts || bytes > limits.maxOutputBytes / 2, "damaged below the caps")
        return 0
    }
    let written = built.lines.filter { !$0.isEmpty }
    let expected = pages.joined().filter { !$0.isEmpty }
    precondition(written == expected, "the document's lines are not the pages' lines in order")
    let count = built.lines.count
    precondition(built.boundaries == built.boundaries.sorted() && Set(built.boundaries).count == built.boundaries.count)
    precondition(built.boundaries.allSatisfy { $0 >= 0 && $0 < count }, "boundary past the end")
    precondition(zip(built.locators, built.locators.dropFirst()).allSatisfy { $0.line < $1.line && $0.number < $1.number })
    precondition(built.locators.allSatisfy { $0.kind == .page && $0.number >= 1 && $0.number <= pages.count })
    precondition(built.locators.allSatisfy { $0.line < max(count, 1) }, "locator past the end")
    precondition(zip(built.headings, built.headings.dropFirst()).allSatisfy { $0.line < $1.line }, "headings unsorted")
    precondition(built.headings.allSatisfy { $0.line < max(count, 1) && !$0.path.isEmpty }, "heading past the end")
    let again = try? PDFText.document(pages: pages, outline: items, extractor: "fuzz", limits: limits)
    precondition(again == built, "building is not deterministic")
    return 0
}
