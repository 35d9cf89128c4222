import Foundation
import Testing
import TroveSystem

@Suite("Line framing")
struct LineFramerTests {
    @Test("lines are framed across any chunk boundary, CRLF and blank lines tolerated")
    func framing() {
        var framer = LineFramer(limit: 100)
        let input = Array("{\"a\":1}\r\n\n{\"b\":2}\n{\"c\"".utf8)
        var pieces: [LineFramer.Piece] = []
        for byte in input { pieces += framer.feed(Data([byte])) }
        pieces += framer.feed(Data(":3}".utf8))
        pieces += framer.finish()
        #expect(
            pieces == [.line(Data("{\"a\":1}".utf8)), .line(Data("{\"b\":2}".utf8)), .line(Data("{\"c\":3}".utf8))])
    }

    @Test("a line over the cap is refused once, dropped to its newline, and the next line is read")
    func oversized() {
        var framer = LineFramer(limit: 4 << 20)
        var pieces: [LineFramer.Piece] = []
        let block = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<5 { pieces += framer.feed(block) }
        pieces += framer.feed(Data("yy\n{\"ok\":true}\n".utf8))
        #expect(pieces == [.oversized, .line(Data("{\"ok\":true}".utf8))])
    }

    @Test("the same bytes cut into chunks anywhere give the same pieces as fed whole", arguments: [1, 2, 3, 7, 64])
    func chunking(step: Int) {
        let text = "one\r\n\n  \ntwo\n" + String(repeating: "z", count: 40) + "\nthree\nfour"
        let input = Data(text.utf8)
        var whole = LineFramer(limit: 16)
        let expected = whole.feed(input) + whole.finish()
        let lines: [LineFramer.Piece] = ["one", "two", "", "three", "four"].map {
            $0.isEmpty ? .oversized : .line(Data($0.utf8))
        }
        #expect(expected == lines)
        var cut = LineFramer(limit: 16)
        var pieces: [LineFramer.Piece] = []
        for start in stride(from: 0, to: input.count, by: step) {
            pieces += cut.feed(input.subdata(in: start..<min(start + step, input.count)))
        }
        pieces += cut.finish()
        #expect(pieces == expected)
    }
}
