import Foundation
import Testing
import TroveMCP
import TroveSystem
import TroveTestSupport

@Suite("JSON-RPC framing and errors of trove mcp")
struct JSONRPCTests {
    @Test(
        "malformed input gets the right JSON-RPC error, with the id when it can be read",
        arguments: [
            ("not json at all", JSON.null, -32700 as Int64),
            ("{\"jsonrpc\":\"2.0\",\"id\":1", .null, -32700),
            ("\u{FF}\u{FE}", .null, -32700),
            ("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", .null, -32600),
            ("\"ping\"", .null, -32600),
            ("{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}", .integer(7), -32600),
            ("{\"jsonrpc\":\"2.0\",\"id\":8}", .integer(8), -32600),
            ("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":42}", .integer(9), -32600),
            // Found by the jsonrpc fuzz target: an id past Int64 trapped the server.
            ("{\"jsonrpc\":\"2.0\",\"id\":1e200,\"method\":\"ping\"}", .null, -32600),
            ("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", .null, -32600),
            ("{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"ping\",\"params\":\"x\"}", .string("s"), -32600),
        ])
    func malformed(line: String, id: JSON, code: Int64) {
        guard case .invalid(let gotID, let gotCode, _) = JSONRPC.classify(Data(line.utf8)) else {
            Issue.record("\(line) was accepted")
            return
        }
        #expect(gotID == id)
        #expect(gotCode == code)
    }

    @Test("requests, notifications and replies are told apart")
    func classification() {
        #expect(
            JSONRPC.classify(Data(#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#.utf8))
                == .request(id: "a", method: "ping", params: nil))
        #expect(
            JSONRPC.classify(Data(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8))
                == .notification(method: "notifications/initialized", params: nil))
        #expect(JSONRPC.classify(Data(#"{"jsonrpc":"2.0","id":3,"result":{}}"#.utf8)) == .response)
    }

    @Test("text with quotes, newlines and control characters is written as one escaped line")
    func escaping() throws {
        let text = "line one\n{\"jsonrpc\":\"2.0\",\"id\":1}\u{07}\u{1B}\u{01}\r\u{2028}end"
        let encoded = JSON.object(["text": .string(text)]).encoded()
        #expect(!encoded.contains(0x0A) && !encoded.contains(0x0D))
        #expect(!encoded.contains(where: { $0 < 0x20 }))
        #expect(JSON.parse(encoded)?["text"]?.stringValue == text)
    }

    @Test("a number whose fraction a Double cannot hold is the whole number it reads back as", arguments: [
        ("11111111111111111.111111111111111111", JSON.integer(11_111_111_111_111_112)), ("2.0", .integer(2)),
        ("2.5", .number(2.5)), ("1e300", .number(1e300)), ("-0.0", .integer(0)),
    ])
    func wholeNumbers(text: String, value: JSON) throws {
        let parsed = try #require(JSON.parse(Data(text.utf8)))
        #expect(parsed == value)
        #expect(JSON.parse(parsed.encoded()) == parsed)
    }

    @Test("seeded random lines and mutated messages never crash the classifier, and the framer keeps every byte")
    func randomInput() {
        var random = SplitMix64(seed: 0x7E57_11)
        let seeds = [
            #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            #"{"jsonrpc":"2.0","id":"a","result":{}}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]":,\0123456789-.eE truefalsnul"#.utf8) + [0x00, 0x0D, 0xC3, 0xFF]
        for round in 0..<2000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: position)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            switch JSONRPC.classify(Data(bytes)) {
            case .invalid(let id, let code, _):
                #expect([-32700, -32600].contains(code))
                #expect(id == .null || id.stringValue != nil || id.integerValue != nil)
            case .request(let id, _, _):
                #expect(id.stringValue != nil || id.integerValue != nil)
            case .notification, .response:
                break
            }
        }
        // Framing random chunks of newline-separated lines gives the lines back, whatever the cut points.
        var framer = LineFramer(limit: 1 << 16)
        let lines = (0..<200).map { _ in
            Data(
                (0..<Int.random(in: 1...300, using: &random)).map { _ in UInt8.random(in: 0x21...0x7E, using: &random) }
            )
        }
        var stream = Data(lines.map { $0 + Data([0x0A]) }.joined())
        var framed: [LineFramer.Piece] = []
        while !stream.isEmpty {
            let cut = min(stream.count, Int.random(in: 1...700, using: &random))
            framed += framer.feed(stream.prefix(cut))
            stream = stream.dropFirst(cut)
        }
        #expect(framed == lines.map { .line($0) })
    }
}
