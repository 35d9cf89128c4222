import Foundation
import Testing
import TroveIngest

@testable import TroveExtract

@Suite struct MailExtractorTests {
    static func fixture(_ name: String) throws -> [UInt8] { try HTMLExtractorTests.fixture("mail", name) }

    @Test func aPlainMessageIsOneSectionWithItsHeadersAndLocator() throws {
        let document = try MailExtractor.extract(try Self.fixture("msg_01.txt"), limits: ExtractionLimits())
        #expect(
            document.headings == [
                .init(
                    line: 0,
                    path: ["This is a test message — bbb@ddd.com (John X. Doe) — Fri, 4 May 2001 14:05:44 -0400"])
            ])
        #expect(document.locators == [.init(line: 0, kind: .message, number: 1)])
        #expect(document.boundaries == [0])
        #expect(
            document.lines == [
                "Subject: This is a test message", "From: bbb@ddd.com (John X. Doe)", "To: bbb@zzz.org",
                "Date: Fri, 4 May 2001 14:05:44 -0400", "", "", "Hi,", "", "Do you like this message?", "", "-Me",
            ])
        #expect(document.extractor == "eml")
    }

    @Test func transferEncodingsAndCharsetsAreUndoneAndHTMLPartsReadAsHTML() throws {
        let text = try MailExtractor.extract(try Self.fixture("msg_10.txt"), limits: ExtractionLimits())
            .lines.joined(separator: "\n")
        #expect(text.contains("This is a 7bit encoded message."))
        #expect(text.contains("¡This is a Quoted Printable encoded message!"))
        #expect(text.contains("This is a Base64 encoded message."))
        #expect(text.contains("This has no Content-Transfer-Encoding: header."))
        #expect(!text.contains("VGhpcyBpcyBh"))
    }

    @Test func aDigestsMessagesAndANestedAlternativeRead() throws {
        let digest = try MailExtractor.extract(try Self.fixture("msg_02.txt"), limits: ExtractionLimits())
        let text = digest.lines.joined(separator: "\n")
        #expect(text.contains("Subject: [Ppp] testing #1"))
        #expect(text.contains("Subject: [Ppp] testing #5"))
        #expect(digest.locators.count == 1)  // one file, one message: its digest's messages are its text
        let outlook = try MailExtractor.extract(try Self.fixture("msg_15.txt"), limits: ExtractionLimits())
        #expect(outlook.headings.first?.path == ["XX — xx@xx.dk"])
        #expect(!outlook.lines.joined().contains("Content-type"))
    }

    @Test func encodedWordsInHeadersAndParametersDecode() throws {
        // RFC 2047 §8's examples, and an attachment named with RFC 2231.
        let message = """
            From: =?US-ASCII?Q?Keith_Moore?= <moore@cs.utk.edu>
            To: =?ISO-8859-1?Q?Keld_J=F8rn_Simonsen?= <keld@dkuug.dk>
            Subject: =?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?=
              =?ISO-8859-2?B?dSB1bmRlcnN0YW5kIHRoZSBleGFtcGxlLg==?=
            Date: Mon, 1 Dec 2026 10:00:00 +0000
            Content-Type: multipart/mixed; boundary=b1

            --b1
            Content-Type: text/plain; charset=utf-8

            Grüße
            --b1
            Content-Type: application/pdf
            Content-Disposition: attachment; filename*=utf-8''r%C3%A9sum%C3%A9.pdf
            Content-Transfer-Encoding: base64

            JVBERi0xLjQK
            --b1--
            """
        let document = try MailExtractor.extract(Array(message.utf8), limits: ExtractionLimits())
        #expect(document.lines.contains("Subject: If you can read this you understand the example."))
        #expect(document.lines.contains("To: Keld Jørn Simonsen <keld@dkuug.dk>"))
        #expect(document.lines.contains("From: Keith Moore <moore@cs.utk.edu>"))
        #expect(document.lines.contains("Grüße"))
        #expect(document.lines.contains("[attachment: résumé.pdf (application/pdf)]"))
    }

    @Test func anMboxIsOneSectionPerMessageWithItsNumber() throws {
        let names = ["msg_01.txt", "msg_10.txt", "msg_15.txt"]
        var mbox: [UInt8] = []
        for name in names {
            mbox += Array("From sender@example.org Mon Dec  1 10:00:00 2026\n".utf8) + (try Self.fixture(name))
            mbox += Array("\n>From the body, quoted by mboxrd\n\n".utf8)
        }
        let document = try MailboxExtractor.extract(mbox, limits: ExtractionLimits())
        #expect(document.locators.map(\.number) == [1, 2, 3])
        #expect(document.boundaries == document.locators.map(\.line))
        #expect(document.headings.map(\.line) == document.locators.map(\.line))
        let titles = document.headings.map { String(($0.path.first ?? "").prefix(5)) }
        #expect(titles == ["This ", "Lyric", "XX — "])
        // Unquoted in the first message's body (in the others it follows the closing boundary: an epilogue, dropped).
        #expect(document.lines.contains("From the body, quoted by mboxrd"))
        #expect(!document.lines.contains { $0.hasPrefix(">From") })
        #expect(document.extractor == "mbox")
    }

    @Test func hostileMailEndsInANamedOutcome() throws {
        // 10,000 messages: past the 5,000 parts one file may hold, refused by name, quickly.
        let many = [UInt8](
            (0..<10_000).map { "From a@b Mon Dec  1 10:00:00 2026\nSubject: m\($0)\n\nbody\n" }.joined().utf8)
        #expect(throws: ExtractionFailure(.damaged, "more than 5000 messages")) {
            try MailboxExtractor.extract(many, limits: ExtractionLimits())
        }
        var few = ExtractionLimits()
        few.maxParts = 20_000
        #expect(try MailboxExtractor.extract(many, limits: few).locators.count == 10_000)
        // Multiparts nested past the limit.
        var nested = "Content-Type: multipart/mixed; boundary=b0\n\n"
        for level in 1...300 { nested += "--b\(level - 1)\nContent-Type: multipart/mixed; boundary=b\(level)\n\n" }
        nested += "--b300\nContent-Type: text/plain\n\ndeep\n"
        #expect(throws: ExtractionFailure(.damaged, "mime parts nested deeper than 256")) {
            try MailExtractor.extract(Array(nested.utf8), limits: ExtractionLimits())
        }
        #expect(throws: ExtractionFailure(.damaged, "not a mail message (binary)")) {
            try MailExtractor.extract([0x50, 0x4B, 0x03, 0x04, 0x00, 0x00], limits: ExtractionLimits())
        }
        // Headers only, an unterminated multipart, a truncated encoded word: read, not refused.
        let bare = try MailExtractor.extract(Array("Subject: only".utf8), limits: ExtractionLimits())
        #expect(bare.lines == ["Subject: only"])
        let cut = "Subject: =?utf-8?B?SGVs\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\ntext"
        #expect(try MailExtractor.extract(Array(cut.utf8), limits: ExtractionLimits()).lines.contains("text"))
    }
}
