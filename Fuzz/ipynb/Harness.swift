import TroveIngest

// Fuzz target: NotebookExtractor (JSON through TroveSystem's JSON, nbformat 4 and 3, Markdown headings, outputs and
// their cap, ANSI escapes).
// Oracle (checkExtraction): only damaged; deterministic; a well-formed document within the caps; cell locators only.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = fuzzLimits()
    checkExtraction(
        { () throws(ExtractionFailure) in
            let document = try NotebookExtractor.extract(bytes, limits: limits)
            precondition(document.locators.allSatisfy { $0.kind == .cell }, "a locator that is not a cell")
            return document
        }, limits: limits)
    return 0
}
