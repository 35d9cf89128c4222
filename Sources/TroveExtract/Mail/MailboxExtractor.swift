import TroveIngest

/// Reads an mbox file: messages separated by `From ` lines (mboxo and mboxrd; a body's `>From ` is unquoted), each a
/// section headed "Subject — From — Date" with its hard boundary and locator `message N`.
package enum MailboxExtractor: DocumentExtractor {
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure)
        -> ExtractedDocument
    {
        guard bytes.count <= limits.maxInputBytes else {
            throw ExtractionFailure(.damaged, "larger than \(ByteSize.format(Int64(limits.maxInputBytes)))")
        }
        guard !bytes.prefix(8192).contains(0) else { throw ExtractionFailure(.damaged, "not a mailbox (binary)") }
        var renderer = MailRenderer(extractor: "mbox", limits: limits)
        for message in messages(bytes) { try renderer.message(message[...]) }
        return renderer.builder.finish()
    }

    /// The messages of an mbox, each without its `From ` line and with mboxrd's quoting (`>From `, `>>From `…) undone
    /// by one level. Text before the first `From ` line (a file that is one bare message) is a message too.
    static func messages(_ bytes: [UInt8]) -> [[UInt8]] {
        let from = Array("From ".utf8)
        var messages: [[UInt8]] = []
        var current: [UInt8] = []
        var started = false
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
            let line = bytes[lineStart..<lineEnd]
            if line.starts(with: from) {
                if started { messages.append(current) }
                current = []
                started = true
            } else {
                let quotes = line.prefix { $0 == UInt8(ascii: ">") }.count
                current += quotes > 0 && line.dropFirst(quotes).starts(with: from) ? line.dropFirst() : line
            }
            lineStart = lineEnd
        }
        if current.contains(where: { $0 != 0x0A && $0 != 0x0D }) { messages.append(current) }
        return messages
    }
}
