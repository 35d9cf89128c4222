import TroveIngest

// Fuzz target: the OOXML readers (DOCXExtractor, PPTXExtractor: relationships, styles, notes, slides) over
// FoundationXML's parser. The input is one part's XML, a NUL byte, then a second part's: written into a stored zip
// as a Word document (document.xml; styles.xml and footnotes.xml) and as a deck (a slide; its notes); the raw input
// is also read as a .docx and a .pptx.
// Oracle (checkExtraction): only damaged or encrypted; deterministic; a well-formed document within the caps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let first = Array(bytes[..<split])
    let second = split < bytes.count ? Array(bytes[(split + 1)...]) : []
    let limits = fuzzLimits()
    let types = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    func rels(_ items: [(String, String)]) -> [UInt8] {
        let body = items.enumerated().map { "<Relationship Id=\"rId\($0.offset + 1)\" Type=\"\(types)/\($0.element.0)\" Target=\"\($0.element.1)\"/>" }
        return Array("<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\(body.joined())</Relationships>".utf8)
    }
    let docx = storedZip([
        ("_rels/.rels", rels([("officeDocument", "word/document.xml")])),
        ("word/_rels/document.xml.rels", rels([("styles", "styles.xml"), ("footnotes", "footnotes.xml")])),
        ("word/document.xml", first), ("word/styles.xml", second), ("word/footnotes.xml", second),
    ])
    checkExtraction({ () throws(ExtractionFailure) in try DOCXExtractor.extract(docx, limits: limits) }, limits: limits)
    let presentation = """
        <p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" \
        xmlns:r="\(types)"><p:sldIdLst><p:sldId id="256" r:id="rId1"/><p:sldId id="257" r:id="rId1"/>\
        </p:sldIdLst></p:presentation>
        """
    let pptx = storedZip([
        ("_rels/.rels", rels([("officeDocument", "ppt/presentation.xml")])),
        ("ppt/presentation.xml", Array(presentation.utf8)),
        ("ppt/_rels/presentation.xml.rels", rels([("slide", "slides/slide1.xml")])),
        ("ppt/slides/slide1.xml", first),
        ("ppt/slides/_rels/slide1.xml.rels", rels([("notesSlide", "../notesSlides/notesSlide1.xml")])),
        ("ppt/notesSlides/notesSlide1.xml", second),
    ])
    checkExtraction({ () throws(ExtractionFailure) in try PPTXExtractor.extract(pptx, limits: limits) }, limits: limits)
    checkExtraction({ () throws(ExtractionFailure) in try DOCXExtractor.extract(bytes, limits: limits) }, limits: limits)
    checkExtraction({ () throws(ExtractionFailure) in try PPTXExtractor.extract(bytes, limits: limits) }, limits: limits)
    return 0
}
