import TroveIngest

// Fuzz target: ODTExtractor (content.xml's paragraphs, headings, tables, notes, soft page breaks) over FoundationXML's
// parser. The input is content.xml, a NUL byte, then META-INF/manifest.xml: written into a stored zip; the raw input
// is also read as an .odt.
// Oracle (checkExtraction): only damaged or encrypted; deterministic; a well-formed document within the caps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let content = Array(bytes[..<split])
    let manifest = split < bytes.count ? Array(bytes[(split + 1)...]) : []
    let limits = fuzzLimits()
    let odt = storedZip([
        ("mimetype", Array("application/vnd.oasis.opendocument.text".utf8)), ("content.xml", content),
        ("META-INF/manifest.xml", manifest),
    ])
    checkExtraction({ () throws(ExtractionFailure) in try ODTExtractor.extract(odt, limits: limits) }, limits: limits)
    checkExtraction({ () throws(ExtractionFailure) in try ODTExtractor.extract(bytes, limits: limits) }, limits: limits)
    return 0
}
