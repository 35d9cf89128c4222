// Fuzz target: the OpenAI-compatible client's SSE framer. Oracle: cutting the same bytes into chunks anywhere
// yields the same events, and the same end-of-stream verdict, as feeding them whole.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    var whole = SSEFramer()
    let expected = whole.push(bytes)
    let expectedClosed = whole.finish()
    // The first byte seeds the cut points, so the fuzzer explores the chunking too (a CR split from its LF).
    var cut = SSEFramer()
    var got: [SSEEvent] = []
    var start = 0
    var step = Int(first % 7) + 1
    while start < bytes.count {
        let end = min(bytes.count, start + step)
        got += cut.push(bytes[start..<end])
        start = end
        step = (step * 5 + 3) % 11 + 1
    }
    precondition(got == expected, "chunking changed the events")
    precondition(cut.finish() == expectedClosed, "chunking changed whether the stream ended cleanly")
    return 0
}
