import Testing

@testable import OpenAICompatible

/// The framer against the WHATWG event-stream rules, fed whole and split at every byte position.
@Suite struct SSEFramerTests {
    /// Feeds `text` as two pieces split at every position (and byte by byte); every way must give `expected`.
    func expectEverySplit(_ text: String, _ expected: [SSEEvent], sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var framer = SSEFramer()
            let events = framer.push(bytes[..<cut]) + framer.push(bytes[cut...])
            #expect(events == expected, "split at byte \(cut)", sourceLocation: sourceLocation)
        }
        var framer = SSEFramer()
        let events = bytes.flatMap { framer.push([$0]) }
        #expect(events == expected, "byte by byte", sourceLocation: sourceLocation)
    }

    @Test func llamaCppStream() {
        let chunk = #"{"choices":[{"delta":{"content":"Hi"}}]}"#
        expectEverySplit("data: \(chunk)\n\ndata: [DONE]\n\n", [SSEEvent(data: chunk), SSEEvent(data: "[DONE]")])
    }

    @Test func lineEndsCRLFCRAndLFMix() {
        expectEverySplit("data: a\r\n\r\ndata: b\r\rdata: c\n\n", [SSEEvent(data: "a"), SSEEvent(data: "b"), SSEEvent(data: "c")])
    }

    @Test func commentsAndPingsAreSkipped() {
        expectEverySplit(": ping\n\n:keep-alive\r\ndata: x\n: inside\n\n", [SSEEvent(data: "x")])
    }

    @Test func eventAndIDFieldsAndMultiLineData() {
        expectEverySplit(
            "event: error\nid: 7\ndata: one\ndata: two\n\ndata:three\n\n",
            [SSEEvent(event: "error", data: "one\ntwo", id: "7"), SSEEvent(data: "three", id: "7")])
    }

    @Test func multiByteCharactersSplitAnywhere() {
        expectEverySplit("data: Größe → 尺寸 🙂\n\n", [SSEEvent(data: "Größe → 尺寸 🙂")])
    }

    @Test func byteOrderMarkAtTheStartIsDropped() {
        expectEverySplit("\u{FEFF}data: x\n\n", [SSEEvent(data: "x")])
    }

    @Test func malformedLinesAreIgnoredNotFatal() {
        // A field with no colon, unknown fields, `retry`, an empty `data` with no value, a blank line with no data.
        expectEverySplit(
            "garbage\nretry: 10\nfoo: bar\n\n\n\ndata\n\ndata: ok\n\n",
            [SSEEvent(data: ""), SSEEvent(data: "ok")])
    }

    @Test func onlyOneLeadingSpaceIsRemoved() {
        expectEverySplit("data:  two spaces\n\n", [SSEEvent(data: " two spaces")])
    }

    @Test func anEventCutOffAtTheEndIsDroppedAndReported() {
        var framer = SSEFramer()
        #expect(framer.push(Array("data: {\"choices\":[{\"del".utf8)).isEmpty)
        let cut = framer.finish()
        #expect(cut == false)
        var clean = SSEFramer()
        #expect(clean.push(Array("data: x\n\n".utf8)) == [SSEEvent(data: "x")])
        let whole = clean.finish()
        #expect(whole)
    }

    @Test func anIDWithNULIsIgnored() {
        expectEverySplit("id: a\u{0}b\ndata: x\n\n", [SSEEvent(data: "x")])
    }
}
