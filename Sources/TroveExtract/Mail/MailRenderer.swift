import TroveIngest

/// Writes messages into a `DocumentBuilder`: each message a section headed "Subject — From — Date" with a hard
/// boundary and its `message N` locator; its headers, then its text: `text/plain` preferred in an alternative,
/// else the HTML part read by `HTMLExtractor`; then its attachments, each under a heading naming it, read when they
/// are text or a format Trove extracts (`AttachmentReading`), else named.
struct MailRenderer {
    var builder: DocumentBuilder
    let limits: ExtractionLimits
    /// Reads attachments of the formats other extractors read (the worker passes its registry's); without one they
    /// are named only, and text, HTML and messages are still read.
    let attachments: AttachmentExtractor?
    /// The messages written so far.
    private(set) var count = 0
    /// The heading path of the message being written.
    private var title: [String] = []
    /// Bytes of attachments read in this file so far: past `maxInputBytes`, the others are named, not read.
    private var attachmentBytes = 0

    /// A renderer into a new document read by `extractor` (`eml`, `mbox`).
    init(extractor: String, limits: ExtractionLimits, attachments: AttachmentExtractor?) {
        // Messages are the parts this document counts: a mailbox holds more of them than a PDF holds pages.
        var messageLimits = limits
        messageLimits.maxParts = limits.maxMessages
        builder = DocumentBuilder(extractor: extractor, limits: messageLimits)
        self.limits = limits
        self.attachments = attachments
    }

    /// Writes one message (its bytes, without an mbox `From ` line) as the next section.
    mutating func message(_ bytes: ArraySlice<UInt8>) throws(ExtractionFailure) {
        let message = MIMEEntity(bytes)
        try begin(message.headers)
        let start = builder.lineCount
        try fields(message.headers)
        builder.blankLine()
        try entity(message, depth: 0)
        // A message with no header line and no text still takes a line, so that its locator is not replaced by the
        // next message's (found by the mime fuzz target: numbering that started at 2).
        if builder.lineCount == start { try builder.line("(empty message)") }
        builder.blankLine()
    }

    /// Writes one message of a mailbox as `message` does, except that a message that cannot be read is one line
    /// saying why (the mailbox goes on), and one that would pass the text cap is left out whole: false, with nothing
    /// of it written.
    mutating func mailboxMessage(_ bytes: ArraySlice<UInt8>) throws(ExtractionFailure) -> Bool {
        let mark = builder.mark
        let written = count
        do throws(ExtractionFailure) {
            try message(bytes)
            return true
        } catch {
            let full = builder.isFull
            builder.rollback(to: mark)
            count = written
            guard !full else { return false }
            do throws(ExtractionFailure) {
                try begin(MIMEEntity(bytes).headers)
                try builder.line("[message not read: \(error.kind.rawValue) — \(error.detail)]")
                builder.blankLine()
                return true
            } catch {
                builder.rollback(to: mark)
                count = written
                return false
            }
        }
    }

    /// Starts the next message's section: its boundary, locator and heading.
    private mutating func begin(_ headers: MailHeaders) throws(ExtractionFailure) {
        count += 1
        let subject = headers.decoded("subject").flatMap { $0.isEmpty ? nil : $0 } ?? "(no subject)"
        title = [[subject, headers.decoded("from"), headers.decoded("date")].compactMap { $0 }.joined(separator: " — ")]
        try builder.boundary(.message, number: count)
        builder.heading(title)
    }

    /// The header fields a reader looks at, decoded.
    private mutating func fields(_ headers: MailHeaders) throws(ExtractionFailure) {
        for (name, label) in [("subject", "Subject"), ("from", "From"), ("to", "To"), ("cc", "Cc"), ("date", "Date")] {
            if let value = headers.decoded(name), !value.isEmpty { try builder.line("\(label): \(value)") }
        }
    }

    /// Writes an entity's text: a multipart's parts (one of an alternative), a text part, a forwarded message's
    /// headers and text, an attachment. A digest's parts are messages unless they say otherwise (RFC 2046 §5.1.5).
    private mutating func entity(_ entity: MIMEEntity, depth: Int, inDigest: Bool = false) throws(ExtractionFailure) {
        guard depth <= limits.maxNesting else {
            throw ExtractionFailure(.damaged, "mime parts nested deeper than \(limits.maxNesting)")
        }
        var (type, parameters) = entity.headers.contentType
        if inDigest && entity.headers["content-type"] == nil { type = "message/rfc822" }
        let disposition = entity.headers.disposition
        let name = disposition.parameters["filename"] ?? parameters["name"]
        if disposition.attachment && !type.hasPrefix("multipart/") {
            try attachment(entity, type: type, charset: parameters["charset"], name: name, depth: depth)
        } else if type.hasPrefix("multipart/"), let boundary = parameters["boundary"], !boundary.isEmpty {
            let parts = entity.parts(boundary: boundary).map(MIMEEntity.init)
            if type == "multipart/alternative", let best = Self.preferred(parts) {
                try self.entity(best, depth: depth + 1)
            } else {
                for part in parts { try self.entity(part, depth: depth + 1, inDigest: type == "multipart/digest") }
            }
        } else if type == "message/rfc822" || type == "message/global" {
            try embedded(entity.decodedBody, depth: depth)
        } else if type == "text/html" {
            let page = try HTMLExtractor.extract(entity.decodedBody, charset: parameters["charset"], limits: limits)
            for line in page.lines { try builder.line(line) }
            builder.blankLine()
        } else if type.hasPrefix("text/") {
            try builder.line(DeclaredText.decode(entity.decodedBody, charsets: [parameters["charset"] ?? ""]).text)
            builder.blankLine()
        } else {
            try attachment(entity, type: type, charset: parameters["charset"], name: name, depth: depth)
        }
    }

    /// A message inside this one (forwarded, digested, attached): its headers and text, one MIME level deeper.
    private mutating func embedded(_ bytes: [UInt8], depth: Int) throws(ExtractionFailure) {
        let inner = MIMEEntity(bytes[...])
        builder.blankLine()
        try fields(inner.headers)
        builder.blankLine()
        try entity(inner, depth: depth + 1)
    }

    /// An attachment: a line naming it, under a heading naming it, then its text when it is read. One that cannot be
    /// read (damaged, a tool missing, more text than the document has room for) says so in a line; the message stays.
    private mutating func attachment(
        _ entity: MIMEEntity, type: String, charset: String?, name: String?, depth: Int
    ) throws(ExtractionFailure) {
        let reading = AttachmentReading(type: type, name: name)
        let path = title + ["attachment: \(name ?? type)"]
        builder.blankLine()
        if reading != .none { builder.heading(path) }
        try builder.line("[attachment: \(name ?? "unnamed") (\(type))]")
        defer {
            builder.blankLine()
            if reading != .none { builder.heading(title) }  // what follows is the message's again
        }
        guard reading != .none else { return }
        let bytes = entity.decodedBody
        attachmentBytes += bytes.count
        guard attachmentBytes <= limits.maxInputBytes else {
            let cap = ByteSize.format(Int64(limits.maxInputBytes))
            return try builder.line("(not read: this file's attachments pass \(cap))")
        }
        let mark = builder.mark
        do throws(ExtractionFailure) {
            try read(bytes, as: reading, charset: charset, path: path, depth: depth)
        } catch where builder.isFull {
            // Too much text for what is left of the cap: the attachment is named, the message kept.
            builder.rollback(to: mark)
            try builder.line("(not read: more text than this file has room for)")
        }
    }

    /// Writes an attachment's text as `reading` says.
    private mutating func read(
        _ bytes: [UInt8], as reading: AttachmentReading, charset: String?, path: [String], depth: Int
    ) throws(ExtractionFailure) {
        switch reading {
        case .none: return
        case .message: try embedded(bytes, depth: depth)
        case .text: try builder.line(DeclaredText.decode(bytes, charsets: [charset ?? ""]).text)
        case .format(let format):
            // Within what is left of this document's text cap, without OCR (seconds a page, for a file not asked for).
            var inner = limits
            inner.maxOutputBytes = builder.remainingBytes
            inner.ocrPages = 0
            let document: ExtractedDocument
            do throws(ExtractionFailure) {
                if format == .html {
                    document = try HTMLExtractor.extract(bytes, charset: charset, limits: inner)
                } else if let attachments {
                    document = try attachments(bytes, format, inner)
                } else {
                    return try builder.line("(not read: no \(format.rawValue) reader here)")
                }
            } catch {
                return try builder.line("(not read: \(error.kind.rawValue) — \(error.detail))")
            }
            try builder.append(document, under: path, withParts: false)
        }
    }

    /// The part of an alternative to read: plain text, else HTML, else the first.
    private static func preferred(_ parts: [MIMEEntity]) -> MIMEEntity? {
        parts.first { $0.headers.contentType.type == "text/plain" }
            ?? parts.first { $0.headers.contentType.type == "text/html" } ?? parts.first
    }
}
