import TroveIngest

/// Writes messages into a `DocumentBuilder`: each message a section headed "Subject — From — Date" with a hard
/// boundary and its `message N` locator; its headers, then its text: `text/plain` preferred in an alternative,
/// else the HTML part read by `HTMLExtractor`; attachments named, not read.
struct MailRenderer {
    var builder: DocumentBuilder
    let limits: ExtractionLimits
    /// The messages written so far.
    private(set) var count = 0

    /// A renderer into a new document read by `extractor` (`eml`, `mbox`).
    init(extractor: String, limits: ExtractionLimits) {
        builder = DocumentBuilder(extractor: extractor, limits: limits)
        self.limits = limits
    }

    /// Writes one message (its bytes, without an mbox `From ` line) as the next section.
    mutating func message(_ bytes: ArraySlice<UInt8>) throws(ExtractionFailure) {
        count += 1
        let message = MIMEEntity(bytes)
        let headers = message.headers
        let subject = headers.decoded("subject").flatMap { $0.isEmpty ? nil : $0 } ?? "(no subject)"
        let title = [subject, headers.decoded("from"), headers.decoded("date")].compactMap { $0 }
            .joined(separator: " — ")
        try builder.boundary(.message, number: count)
        builder.heading([title])
        let start = builder.lineCount
        try fields(headers)
        builder.blankLine()
        try entity(message, depth: 0)
        // A message with no header line and no text still takes a line, so that its locator is not replaced by the
        // next message's (found by the mime fuzz target: numbering that started at 2).
        if builder.lineCount == start { try builder.line("(empty message)") }
        builder.blankLine()
    }

    /// The header fields a reader looks at, decoded.
    private mutating func fields(_ headers: MailHeaders) throws(ExtractionFailure) {
        for (name, label) in [("subject", "Subject"), ("from", "From"), ("to", "To"), ("cc", "Cc"), ("date", "Date")] {
            if let value = headers.decoded(name), !value.isEmpty { try builder.line("\(label): \(value)") }
        }
    }

    /// Writes an entity's text: a multipart's parts (one of an alternative), a text part, a forwarded message's
    /// headers and text; anything else as one line naming it. A digest's parts are messages unless they say otherwise
    /// (RFC 2046 §5.1.5).
    private mutating func entity(_ entity: MIMEEntity, depth: Int, inDigest: Bool = false) throws(ExtractionFailure) {
        guard depth <= limits.maxNesting else {
            throw ExtractionFailure(.damaged, "mime parts nested deeper than \(limits.maxNesting)")
        }
        var (type, parameters) = entity.headers.contentType
        if inDigest && entity.headers["content-type"] == nil { type = "message/rfc822" }
        let disposition = entity.headers.disposition
        let name = disposition.parameters["filename"] ?? parameters["name"]
        if disposition.attachment && !type.hasPrefix("multipart/") {
            try builder.line("[attachment: \(name ?? "unnamed") (\(type))]")
            builder.blankLine()
            return
        }
        if type.hasPrefix("multipart/"), let boundary = parameters["boundary"], !boundary.isEmpty {
            let parts = entity.parts(boundary: boundary).map(MIMEEntity.init)
            if type == "multipart/alternative", let best = Self.preferred(parts) {
                try self.entity(best, depth: depth + 1)
            } else {
                for part in parts { try self.entity(part, depth: depth + 1, inDigest: type == "multipart/digest") }
            }
        } else if type == "message/rfc822" || type == "message/global" {
            let inner = MIMEEntity(entity.decodedBody[...])
            builder.blankLine()
            try fields(inner.headers)
            builder.blankLine()
            try self.entity(inner, depth: depth + 1)
        } else if type == "text/html" {
            let page = try HTMLExtractor.extract(entity.decodedBody, charset: parameters["charset"], limits: limits)
            for line in page.lines { try builder.line(line) }
            builder.blankLine()
        } else if type.hasPrefix("text/") {
            let text = DeclaredText.decode(entity.decodedBody, charsets: [parameters["charset"] ?? ""]).text
            try builder.line(text)
            builder.blankLine()
        } else {
            try builder.line("[attachment: \(name ?? "unnamed") (\(type))]")
            builder.blankLine()
        }
    }

    /// The part of an alternative to read: plain text, else HTML, else the first.
    private static func preferred(_ parts: [MIMEEntity]) -> MIMEEntity? {
        parts.first { $0.headers.contentType.type == "text/plain" }
            ?? parts.first { $0.headers.contentType.type == "text/html" } ?? parts.first
    }
}
