import Foundation
import Testing
import TroveIngest

@testable import TroveExtract

/// Attachments read inside the mail that carries them: real files made by others (python-docx's Word files, a
/// sqlite3-doc page, CPython's messages; our known-pages PDF) attached to a message, each under a heading naming it
/// and the message's one locator.
@Suite struct MailAttachmentTests {
    /// The worker's readers of the other formats, as the registry hands them to the mail readers.
    static let registry: AttachmentExtractor = ExtractorRegistry.extract(_:as:limits:)

    /// A `multipart/mixed` message: a text body, then each attachment base64-encoded (a message as it is, as mail
    /// programs attach one).
    static func message(
        subject: String = "Papers for the garden club", body: String = "The files are attached.",
        attachments: [(type: String, name: String?, bytes: [UInt8])]
    ) -> [UInt8] {
        // Its own boundary, so that a message attached as it is keeps its parts.
        let boundary = "b-" + subject.replacingOccurrences(of: " ", with: "-")
        var text = """
            From: Ann Gardener <ann@example.org>
            To: club@example.org
            Subject: \(subject)
            Date: Tue, 1 Dec 2026 09:00:00 +0000
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="\(boundary)"

            --\(boundary)
            Content-Type: text/plain; charset=utf-8

            \(body)

            """
        for attachment in attachments {
            let disposition = attachment.name.map { "Content-Disposition: attachment; filename=\"\($0)\"\n" } ?? ""
            guard attachment.type != "message/rfc822" else {
                text += "--\(boundary)\nContent-Type: message/rfc822\n\(disposition)\n"
                text += String(decoding: attachment.bytes, as: UTF8.self) + "\n"
                continue
            }
            let encoded = Data(attachment.bytes).base64EncodedString(options: .lineLength76Characters)
            text += "--\(boundary)\nContent-Type: \(attachment.type)\n\(disposition)"
            text += "Content-Transfer-Encoding: base64\n\n"
            text += encoded.replacingOccurrences(of: "\r\n", with: "\n") + "\n"
        }
        return Array((text + "--\(boundary)--\n").utf8)
    }

    @Test func textLikeAttachmentsAreReadUnderAHeadingNamingEach() throws {
        let docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        let bytes = Self.message(attachments: [
            (docx, "styles.docx", try fixture("docx/par-known-styles.docx")),
            (docx, "breaks.docx", try fixture("docx/par-rendered-page-breaks.docx")),
            ("text/html", "shortnames.html", try fixture("html/shortnames.html")),
            // "café crème" in ISO-8859-1.
            (
                "text/plain; charset=iso-8859-1", "menu.txt",
                [0x63, 0x61, 0x66, 0xE9, 0x20, 0x63, 0x72, 0xE8, 0x6D, 0x65]
            ),
            ("application/octet-stream", "notes.md", Array("# Sowing\n\nBeans in May.\n".utf8)),
            ("message/rfc822", "forwarded.eml", try MailExtractorTests.fixture("msg_07.txt")),
        ])
        let document = try MailExtractor.extract(bytes, limits: ExtractionLimits(), attachments: Self.registry)
        let title = "Papers for the garden club — Ann Gardener <ann@example.org> — Tue, 1 Dec 2026 09:00:00 +0000"
        // One message, one locator: the Word file's pages are not the mail's.
        #expect(document.locators == [.init(line: 0, kind: .message, number: 1)])
        #expect(document.boundaries == [0])
        let lines = document.lines
        #expect(lines.contains("The files are attached."))
        #expect(lines.contains("[attachment: styles.docx (\(docx))]"))
        #expect(lines.contains("Body Text"))
        #expect(lines.contains("8+3 Filenames"))
        #expect(lines.contains("café crème"))
        #expect(lines.contains("Beans in May."))
        // The forwarded message's own text and its GIF, named.
        #expect(lines.contains("[attachment: dingusfish.gif (image/gif)]"))
        #expect(!lines.joined().contains("R0lGODdh"))
        // Each attachment is a section named after it; the Word file's heading nests under it.
        func section(of line: String) -> [String]? {
            guard let index = lines.firstIndex(of: line) else { return nil }
            return document.headings.last { $0.line <= index }?.path
        }
        #expect(section(of: "The files are attached.") == [title])
        #expect(section(of: "no specified style") == [title, "attachment: styles.docx"])
        #expect(section(of: "Body Text") == [title, "attachment: styles.docx", "Heading 1"])
        #expect(section(of: "café crème") == [title, "attachment: menu.txt"])
        #expect(section(of: "[attachment: dingusfish.gif (image/gif)]") == [title, "attachment: forwarded.eml"])
    }

    @Test(.enabled(if: popplerInstalled, "pdftotext is not installed (apt-get install poppler-utils poppler-data)"))
    func aPDFAttachmentIsReadThroughPdftotext() throws {
        let bytes = Self.message(attachments: [("application/pdf", "report.pdf", try fixture("pdf/pages.pdf"))])
        let document = try MailExtractor.extract(bytes, limits: ExtractionLimits(), attachments: Self.registry)
        #expect(document.lines.contains("The first page talks about apricots and installation."))
        #expect(document.locators.map(\.kind) == [.message])
    }

    @Test func theWorkerReadsAttachmentsAsTheIndexerAsksForAMessage() async throws {
        let service = WorkerTests.service()
        defer { service.shutdown() }
        let docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        let bytes = Self.message(attachments: [(docx, "styles.docx", try fixture("docx/par-known-styles.docx"))])
        let mail = try await WorkerTests.extract(bytes, as: .eml, with: service).get()
        #expect(mail.lines.contains("Body Text"))
        let mbox = try await WorkerTests.extract(Array("From a@b\n".utf8) + bytes, as: .mbox, with: service).get()
        #expect(mbox.lines.contains("Body Text"))
        // Without the registry (the mime fuzz target), such an attachment is named; text and HTML are still read.
        let alone = try MailExtractor.extract(bytes, limits: ExtractionLimits())
        #expect(alone.lines.contains("(not read: no docx reader here)"))
    }

    @Test func anAttachmentThatCannotBeReadIsNamedAndTheMessageStays() throws {
        let word = try fixture("docx/par-known-styles.docx")
        let bytes = Self.message(attachments: [
            ("application/octet-stream", "half.docx", Array(word.prefix(word.count / 2))),
            ("image/gif", "python.gif", [0x47, 0x49, 0x46, 0x38, 0x39, 0x61]),
            ("application/pgp-signature", "signature.asc", Array("-----BEGIN PGP SIGNATURE-----".utf8)),
        ])
        let document = try MailExtractor.extract(bytes, limits: ExtractionLimits(), attachments: Self.registry)
        let lines = document.lines
        #expect(lines.contains("The files are attached."))
        #expect(lines.contains("[attachment: half.docx (application/octet-stream)]"))
        #expect(lines.contains { $0.hasPrefix("(not read: damaged — not a zip archive") })
        #expect(lines.contains("[attachment: python.gif (image/gif)]"))
        #expect(lines.contains("[attachment: signature.asc (application/pgp-signature)]"))
        #expect(!lines.contains("-----BEGIN PGP SIGNATURE-----"))
        // A real message's signature attachment is named, not read (CPython's msg_45).
        let signed = try MailExtractor.extract(try MailExtractorTests.fixture("msg_45.txt"), limits: ExtractionLimits())
        #expect(signed.lines.contains("[attachment: signature.asc (application/pgp-signature)]"))
    }

    @Test func attachedMessagesNestOnlyToTheMIMEDepthLimit() throws {
        // Each message attaches the one before: 300 levels.
        var inner = Array("Subject: innermost\n\nthe bottom\n".utf8)
        for level in 0..<300 {
            inner = Self.message(subject: "level \(level)", attachments: [("message/rfc822", "m\(level).eml", inner)])
        }
        #expect(throws: ExtractionFailure(.damaged, "mime parts nested deeper than 256")) {
            try MailExtractor.extract(inner, limits: ExtractionLimits())
        }
        var shallow = Array("Subject: innermost\n\nthe bottom\n".utf8)
        for level in 0..<5 {
            shallow = Self.message(subject: "level \(level)", attachments: [("message/rfc822", nil, shallow)])
        }
        #expect(try MailExtractor.extract(shallow, limits: ExtractionLimits()).lines.contains("the bottom"))
    }

    @Test func aMailboxReadsAttachmentsWithinOneBudgetAndKeepsTheTextCap() throws {
        let note = Array(String(repeating: "compost turns in spring\n", count: 100).utf8)
        let one = Self.message(attachments: [("text/plain", "a.txt", note)])
        let mbox = Array(("From a@b\n" + String(decoding: one, as: UTF8.self)
            + "From a@b\n" + String(decoding: one, as: UTF8.self)).utf8)
        let both = try MailboxExtractor.extract(mbox, limits: ExtractionLimits())
        #expect(both.lines.filter { $0 == "compost turns in spring" }.count == 200)
        var tight = ExtractionLimits()
        // Room for each message (its attachment base64-encoded), not for both attachments.
        tight.maxInputBytes = note.count * 19 / 10
        #expect(one.count < tight.maxInputBytes)
        let budget = try MailboxExtractor.extract(mbox, limits: tight)
        #expect(budget.lines.filter { $0 == "compost turns in spring" }.count == 100)
        #expect(budget.lines.contains { $0.hasPrefix("(not read: this file's attachments pass") })
        // An attachment with more text than the document has room for is named; the message is kept.
        var small = ExtractionLimits()
        small.maxOutputBytes = 900
        let cut = try MailExtractor.extract(one, limits: small)
        #expect(cut.lines.contains("The files are attached."))
        #expect(cut.lines.contains("(not read: more text than this file has room for)"))
        let page = Self.message(attachments: [
            ("application/octet-stream", "page.html", try fixture("html/shortnames.html"))
        ])
        let crowded = try MailExtractor.extract(page, limits: small)
        #expect(crowded.lines.contains { $0.hasPrefix("(not read: damaged — more than") })
    }
}
