import Foundation

// Fuzz target: the client's reading of a printed answer (`SearchServer.Response(printedAnswer:)`), bytes from the
// server's socket. Oracles: whatever it accepts, `JSONDecoder` reads as the same answer (the hand-written reader
// never sees what Codable would not); and any text as an answer's strings, written by `JSONEncoder` as the server
// writes it, reads back by hand as the same answer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let read = SearchServer.Response(printedAnswer: bytes) {
        guard let decoded = try? JSONDecoder().decode(SearchServer.Response.self, from: Data(bytes)) else {
            preconditionFailure("an answer read by hand is refused by JSONDecoder")
        }
        precondition(read == decoded, "read by hand \(read), by JSONDecoder \(decoded)")
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let response = SearchServer.Response(output: text, count: size, model: text, error: text, code: text)
    guard let line = try? JSONEncoder().encode(response) else { preconditionFailure("an answer cannot be encoded") }
    precondition(SearchServer.Response(printedAnswer: line) == response, "JSONEncoder's answer does not read back")
    return 0
}
