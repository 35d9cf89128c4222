// Fuzz target: Ollama's NDJSON framer. Oracle: cutting the same bytes into chunks anywhere yields the same lines
// as feeding them whole, and no line holds a newline.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    var whole = NDJSONFramer()
    let expected = whole.append(bytes) + (whole.finish().map { [$0] } ?? [])
    // The first byte seeds the cut points, so the fuzzer explores the chunking too.
    var cut = NDJSONFramer()
    var got: [[UInt8]] = []
    var start = 0
    var step = Int(first % 7) + 1
    while start < bytes.count {
        let end = min(bytes.count, start + step)
        got += cut.append(bytes[start..<end])
        start = end
        step = (step * 5 + 3) % 11 + 1
    }
    if let rest = cut.finish() { got.append(rest) }
    precondition(got == expected, "chunking changed the lines")
    precondition(!expected.contains { $0.contains(0x0A) }, "a line holds a newline")
    return 0
}
