import TroveIngest

// Fuzz target: HTMLExtractor's blocks (HTMLCharset's declaration prescan and decoding, libxml2's HTML parser with
// Trove's options, HTMLRenderer's walk), as read and with a mail part's declared charset.
// Oracle (checkExtraction): only damaged; deterministic; a well-formed document within the caps; every heading a path.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = fuzzLimits()
    for charset in [nil, "windows-1252", "shift_jis"] {
        checkExtraction(
            { () throws(ExtractionFailure) in
                let document = try HTMLExtractor.extract(bytes, charset: charset, limits: limits)
                precondition(document.headings.allSatisfy { !$0.path.isEmpty }, "a heading without a path")
                return document
            }, limits: limits)
    }
    return 0
}
