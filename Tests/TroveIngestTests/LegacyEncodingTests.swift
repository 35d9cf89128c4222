import Foundation
import Testing
import TroveIngest
import TroveTestSupport

/// Item 11 of issue 27: text that is not UTF-8 is read in its own encoding, detected by uchardet and decoded by
/// iconv, on real files from CPython's test suite with their UTF-8 twins as ground truth (Fixtures/encodings).
@Suite struct LegacyEncodingTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/encodings")
        return try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
    }

    @Test(
        "CJK text in its legacy encoding reads exactly as its UTF-8 twin",
        arguments: [
            ("gb18030", "GB18030"), ("shift_jis", "SHIFT_JIS"), ("euc_kr", "UHC"), ("big5", "BIG5"),
            ("euc_jp", "EUC-JP"),
        ])
    func cjk(name: String, encoding: String) throws {
        let document = try DocumentLoader.decode(try Self.fixture(name + ".txt"), displayPath: name)
        let truth = String(decoding: try Self.fixture(name + "-utf8.txt"), as: UTF8.self)
        // The Korean file's last line spells syllables with KS X 1001's 8-byte composition sequences, which Python's
        // codec composes and iconv leaves as jamo: every other line must match exactly.
        let composed = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("☆첫가끝") } }
        #expect(composed(document.text) == composed(truth))
        #expect(document.text.count >= truth.count)
        #expect(document.encoding == encoding)
        #expect(!document.replacedInvalidUTF8)
        #expect(document.decodingWarning(displayPath: name) == nil)
    }

    @Test func latin1AndKOI8RRead() throws {
        let french = try DocumentLoader.decode(try Self.fixture("iso_8859_1.py.txt"), displayPath: "f")
        #expect(french.text.contains("Les hommes ont oublié cette vérité"))
        #expect(french.encoding == "ISO-8859-1")
        let russian = try DocumentLoader.decode(try Self.fixture("koi8_r.py.txt"), displayPath: "r")
        #expect(russian.text.contains("Познание бесконечности требует бесконечного времени."))
        #expect(russian.encoding == "KOI8-R")
    }

    @Test func theIssuesLatin1NoteIsNoLongerMangled() throws {
        let bytes = Array("café crème brûlée\n".data(using: .isoLatin1)!)
        let document = try DocumentLoader.decode(bytes, displayPath: "note.txt")
        #expect(document.text == "café crème brûlée\n")
        #expect(!document.replacedInvalidUTF8)
        #expect(document.encoding != "UTF-8")
    }

    @Test func mostlyUTF8WithAStrayByteStaysUTF8() throws {
        let bytes = Array("Mostly valid UTF-8 with ünïcödé but one bad byte: ".utf8) + [0xFF]
            + Array(" and more text here, naïve café.\n".utf8)
        let document = try DocumentLoader.decode(bytes, displayPath: "x")
        #expect(document.text.contains("ünïcödé"))
        #expect(document.text.contains("\u{FFFD}"))
        #expect(document.replacedInvalidUTF8 && document.encoding == "UTF-8")
    }

    @Test func theDecoderReplacesWhatTheCharsetCannotReadAndRefusesUnknownNames() throws {
        let decoded = try #require(CharsetDecoder.decode([0x61, 0x81, 0x62, 0xE9], from: "windows-1252"))
        #expect(decoded.text == "a\u{FFFD}bé" && decoded.replaced == 1)
        // A lead byte cut off at the end of the input.
        let cut = try #require(CharsetDecoder.decode([0x61, 0x82], from: "SHIFT_JIS"))
        #expect(cut.text == "a\u{FFFD}" && cut.replaced == 1)
        #expect(CharsetDecoder.decode([0x61], from: "x-no-such-charset") == nil)
        #expect(CharsetDecoder.decode([], from: "latin1")?.text == "")
        // Large input: the output buffer grows as needed.
        let big = [UInt8](repeating: 0xE9, count: 100_000)
        #expect(CharsetDecoder.decode(big, from: "latin1")?.text.unicodeScalars.count == 100_000)
    }
}
