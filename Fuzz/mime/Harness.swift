import TroveIngest

// Fuzz target: the MIME reader (MailHeaders, EncodedWords, MIMEEntity's multipart cutting, TransferDecoding, the
// charsets, HTML parts through HTMLExtractor) as one message (.eml) and as an mbox.
// Oracle (checkExtraction): only damaged; deterministic; a well-formed document within the caps; one message locator
// per message, numbered from 1.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = fuzzLimits()
    checkExtraction({ () throws(ExtractionFailure) in try MailExtractor.extract(bytes, limits: limits) }, limits: limits)
    checkExtraction(
        { () throws(ExtractionFailure) in
            let document = try MailboxExtractor.extract(bytes, limits: limits)
            precondition(document.locators.map(\.number) == Array(1..<(document.locators.count + 1)), "numbering")
            return document
        }, limits: limits)
    return 0
}
