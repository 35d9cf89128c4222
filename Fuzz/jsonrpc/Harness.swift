import Foundation
import TroveSystem

// Fuzz target: `trove mcp`'s stdin reader — the line framer and the JSON-RPC classifier. The first byte seeds the
// chunk sizes and the line limit. Oracles: cutting the bytes into chunks anywhere gives the same pieces as feeding
// them whole; every line classifies without a trap; JSON that parses re-encodes to JSON that parses to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let control = Int(data[0])
    let bytes = Data(bytes: data + 1, count: size - 1)
    let limit = [16, 256, 65_536][control % 3]
    var whole = LineFramer(limit: limit)
    let expected = whole.feed(bytes) + whole.finish()
    var cut = LineFramer(limit: limit)
    var got: [LineFramer.Piece] = []
    var start = 0
    var step = control % 9 + 1
    while start < bytes.count {
        let end = min(bytes.count, start + step)
        got += cut.feed(bytes.subdata(in: start..<end))
        start = end
        step = (step * 7 + 1) % 13 + 1
    }
    got += cut.finish()
    precondition(got == expected, "chunking changed the pieces")
    for piece in expected {
        guard case .line(let line) = piece else { continue }
        _ = JSONRPC.classify(line)
        if let value = JSON.parse(line) {
            precondition(JSON.parse(value.encoded()) == value, "JSON does not survive a round trip")
        }
    }
    return 0
}
