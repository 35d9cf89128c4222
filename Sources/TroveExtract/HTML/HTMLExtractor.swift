import CLibXML2
import TroveIngest

/// Reads HTML and XHTML (web pages, EPUB chapters, mail bodies) with libxml2's tolerant HTML parser into blocks:
/// h1–h6 as headings, paragraphs, list items, preformatted text, quotes and table rows as lines; scripts, styles,
/// `noscript` and `template` dropped.
///
/// The parser runs with RECOVER (tag soup is the norm), NONET (nothing is fetched), NOERROR and NOWARNING (a broken
/// page is read, not reported line by line) and COMPACT; never NOENT, DTDLOAD or HUGE, so no entity is expanded and no
/// external file is read (an XXE or billion-laughs declaration stays inert text of the DTD, which is not rendered).
package enum HTMLExtractor: DocumentExtractor {
    /// The page in `bytes`, in the charset it declares (a BOM, `<meta charset>` or the XML declaration).
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure)
        -> ExtractedDocument
    {
        try extract(bytes, charset: nil, limits: limits)
    }

    /// The page in `bytes`, read as `charset` when one is given (a mail part's `charset=` parameter), else as the page
    /// declares, else as detected (`HTMLCharset`). A charset iconv does not know is ignored, as a mail reader would.
    /// Without `titled`, the `title` is left out (an EPUB chapter's is usually the book's, repeated in every chapter).
    package static func extract(_ bytes: [UInt8], charset: String?, titled: Bool = true, limits: ExtractionLimits)
        throws(ExtractionFailure) -> ExtractedDocument
    {
        try read(bytes, charset: charset, titled: titled, limits: limits).document
    }

    /// The page as `extract` reads it, and the line where each of its ids (and `<a name>`s) falls.
    static func read(_ bytes: [UInt8], charset: String?, titled: Bool, limits: ExtractionLimits)
        throws(ExtractionFailure) -> (document: ExtractedDocument, anchors: [String: Int])
    {
        guard bytes.count <= limits.maxInputBytes else {
            throw ExtractionFailure(.damaged, "larger than \(ByteSize.format(Int64(limits.maxInputBytes)))")
        }
        _ = initialized
        // Errors go to this thread's structured handler (a no-op), never to stderr, whatever the options miss.
        xmlSetStructuredErrorFunc(nil) { _, _ in }
        let text = HTMLCharset.utf8(bytes, given: charset)
        guard let document = try parse(text.bytes) else {
            if text.bytes.allSatisfy({ $0 == 0x20 || (0x09...0x0D).contains($0) }) {
                return (DocumentBuilder(extractor: identity, limits: limits).finish(), [:])
            }
            throw ExtractionFailure(.damaged, "not an html document")
        }
        defer { xmlFreeDoc(document) }
        var renderer = HTMLRenderer(extractor: identity, limits: limits, titled: titled)
        try renderer.render(xmlDocGetRootElement(document))
        renderer.builder.encoding = text.encoding
        return (renderer.builder.finish(), renderer.anchors)
    }

    /// How the text was read, stored with the document: `html/libxml2 2.9.14` (the library loaded at run time).
    package static let identity: String = {
        // `xmlParserVersion` is a macro over this function when libxml2 is built with threads, as Debian's is.
        let number = __xmlParserVersion().pointee.flatMap { Int(String(cString: $0)) } ?? 0
        return "html/libxml2 \(number / 10_000).\(number / 100 % 100).\(number % 100)"
    }()

    /// The options every parse uses: see the type's comment for why each is on, and why the others never are.
    /// IGNORE_ENC: the text is UTF-8 by then (`HTMLCharset`), whatever its `<meta charset>` still says.
    static let options = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
            | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_COMPACT.rawValue | HTML_PARSE_IGNORE_ENC.rawValue)

    /// libxml2 sets up its globals once per process before any thread parses.
    private static let initialized: Void = xmlInitParser()

    /// The parsed tree of UTF-8 `bytes` (to be freed), or nil when libxml2 finds no document at all. Throws `damaged`
    /// when libxml2 stopped early (nesting past its limit of 256 elements), since the tree would silently lack the rest
    /// of the page.
    private static func parse(_ bytes: [UInt8]) throws(ExtractionFailure) -> htmlDocPtr? {
        guard let context = htmlNewParserCtxt() else { throw ExtractionFailure(.outOfMemory, "libxml2 parser") }
        defer { htmlFreeParserCtxt(context) }
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars -> htmlDocPtr? in
                guard let base = chars.baseAddress else { return nil }
                return htmlCtxtReadMemory(context, base, Int32(chars.count), nil, "UTF-8", options)
            }
        }
        // A fatal error halts libxml2's parser (disableSAX) and leaves a truncated tree; tag soup never does.
        if context.pointee.disableSAX != 0 {
            xmlFreeDoc(document)
            let message = context.pointee.lastError.message.map { String(cString: $0) } ?? ""
            // libxml2's own depth limit (xmlParserMaxDepth, 256 without HUGE) is what stops deep pages.
            throw message.contains("Excessive depth")
                ? ExtractionFailure(.damaged, "html elements nested deeper than 256")
                : ExtractionFailure(.damaged, "html parser stopped: " + (message.split(separator: "\n").first ?? ""))
        }
        return document
    }
}
