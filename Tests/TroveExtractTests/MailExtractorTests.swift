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

    @Test func aBigMailboxIsReadAndWhatPassesACapIsCountedNotRefused() throws {
        // 10,000 messages: more than a PDF's 5,000 pages, read whole.
        let many = [UInt8](
            (0..<10_000).map { "From a@b Mon Dec  1 10:00:00 2026\nSubject: m\($0)\n\nbody \($0)\n" }.joined().utf8)
        let whole = try MailboxExtractor.extract(many, limits: ExtractionLimits())
        #expect(whole.locators.count == 10_000 && whole.locators.last?.number == 10_000)
        #expect(whole.truncation == nil)
        // Past the text cap: whole messages are kept, the rest counted.
        var small = ExtractionLimits()
        small.maxOutputBytes = 64 << 10
        let cut = try MailboxExtractor.extract(many, limits: small)
        let kept = cut.locators.count
        #expect(kept > 100 && kept < 10_000)
        #expect(cut.truncation == .init(kind: .message, kept: kept, total: 10_000, limit: "the 64.0 KB text limit"))
        #expect(cut.lines.last == "body \(kept - 1)")
        #expect(cut.lines.reduce(0) { $0 + $1.utf8.count + 1 } <= 64 << 10)
        // Past the message cap.
        var fewer = ExtractionLimits()
        fewer.maxMessages = 2_500
        let capped = try MailboxExtractor.extract(many, limits: fewer)
        #expect(capped.truncation == .init(kind: .message, kept: 2_500, total: 10_000, limit: "the 2500-message limit"))
        #expect(capped.lines.last == "body 2499")
    }

    @Test func aMailboxIsStreamedFromItsDescriptorInBlocks() throws {
        // Messages cut across the 1 MiB blocks, one of them with a 3 MiB body, and a last line with no line break.
        let big = String(repeating: "spinach and chard grow in rows\n", count: 100_000)
        var text = ""
        for number in 0..<40 {
            text += "From a@b Mon Dec  1 10:00:00 2026\nSubject: m\(number)\n\n"
            text += number == 7 ? big : String(repeating: "line of message \(number)\n", count: 4_000)
        }
        text += "From a@b Mon Dec  1 10:00:00 2026\nSubject: last\n\nno line break"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString).mbox")
        try Data(text.utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let descriptor = open(path.path, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let streamed = try MailboxExtractor.extract(
            descriptor: descriptor, limits: ExtractionLimits(), attachments: nil)
        #expect(streamed == (try MailboxExtractor.extract(Array(text.utf8), limits: ExtractionLimits())))
        #expect(streamed.locators.count == 41)
        #expect(streamed.lines.last == "no line break")
        #expect(streamed.lines.filter { $0 == "spinach and chard grow in rows" }.count == 100_000)
    }

    @Test func hostileMailEndsInANamedOutcome() throws {
        // Multiparts nested past the limit.
        var nested = "Content-Type: multipart/mixed; boundary=b0\n\n"
        for level in 1...300 { nested += "--b\(level - 1)\nContent-Type: multipart/mixed; boundary=b\(level)\n\n" }
        nested += "--b300\nContent-Type: text/plain\n\ndeep\n"
        #expect(throws: ExtractionFailure(.damaged, "mime parts nested deeper than 256")) {
            try MailExtractor.extract(Array(nested.utf8), limits: ExtractionLimits())
        }
        // In a mailbox, that message is one line saying why, and the messages around it are read.
        let mailbox = "From a@b\nSubject: before\n\nfirst\nFrom a@b\nSubject: deep\n" + nested
            + "From a@b\nSubject: after\n\nthird\n"
        let read = try MailboxExtractor.extract(Array(mailbox.utf8), limits: ExtractionLimits())
        #expect(read.locators.map(\.number) == [1, 2, 3])
        #expect(read.lines.contains("[message not read: damaged — mime parts nested deeper than 256]"))
        #expect(read.lines.contains("first") && read.lines.contains("third"))
        #expect(read.headings.map(\.path.first) == ["before", "deep", "after"])
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
