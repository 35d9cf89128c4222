import TroveIngest

// Fuzz target: the EPUB package readers (EPUBPackage: container.xml, the OPF's manifest and spine, encryption.xml;
// EPUBTableOfContents: the nav document and the NCX) and EPUBExtractor's spine walk, chapters through HTMLExtractor.
// The input is the OPF, a NUL byte, then one XHTML file: written into a stored zip as OEBPS/content.opf and as the
// chapter, nav document and NCX it may name (ch1.xhtml, nav.xhtml, toc.ncx); the raw input is also read as an .epub.
// Oracle (checkExtraction): only damaged or encrypted; deterministic; a well-formed document within the caps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let opf = Array(bytes[..<split])
    let page = split < bytes.count ? Array(bytes[(split + 1)...]) : []
    let limits = fuzzLimits()
    let container = """
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>\
        <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
        """
    let epub = storedZip([
        ("mimetype", Array("application/epub+zip".utf8)), ("META-INF/container.xml", Array(container.utf8)),
        ("OEBPS/content.opf", opf), ("OEBPS/ch1.xhtml", page), ("OEBPS/nav.xhtml", page), ("OEBPS/toc.ncx", page),
    ])
    checkExtraction({ () throws(ExtractionFailure) in try EPUBExtractor.extract(epub, limits: limits) }, limits: limits)
    checkExtraction({ () throws(ExtractionFailure) in try EPUBExtractor.extract(bytes, limits: limits) }, limits: limits)
    return 0
}
