@preconcurrency import Glibc
import TroveIngest
import TroveSystem

/// Reads an mbox file: messages separated by `From ` lines (mboxo and mboxrd; a body's `>From ` is unquoted), each a
/// section headed "Subject — From — Date" with its hard boundary and locator `message N`.
///
/// The file is streamed, one block at a time, so only the message being read is held. When the text cap
/// (`maxOutputBytes`) or the message cap (`maxMessages`) is reached, the messages that fit are kept whole and the rest
/// only counted, and the document says so (`ExtractedDocument.truncation`): a big mailbox is indexed, not refused.
/// A message that cannot be read (parts nested past the limit) is one line saying why; the mailbox goes on.
package enum MailboxExtractor: DocumentExtractor {
    /// How much of the file is read at a time.
    static let blockSize = 1 << 20

    /// The mailbox in `bytes`, its attachments of other formats named only (see the next).
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits) throws(ExtractionFailure)
        -> ExtractedDocument
    {
        try extract(bytes, limits: limits, attachments: nil)
    }

    /// The mailbox in `bytes`, its attachments of other formats read by `attachments` (the worker's registry).
    package static func extract(_ bytes: [UInt8], limits: ExtractionLimits, attachments: AttachmentExtractor?)
        throws(ExtractionFailure) -> ExtractedDocument
    {
        var offset = 0
        return try read(limits: limits, attachments: attachments) {
            () throws(ExtractionFailure) -> ArraySlice<UInt8>? in
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + blockSize)
            defer { offset = end }
            return bytes[offset..<end]
        }
    }

    /// The mailbox open as `descriptor`, read from its start without moving the shared offset.
    package static func extract(descriptor: Int32, limits: ExtractionLimits, attachments: AttachmentExtractor?)
        throws(ExtractionFailure) -> ExtractedDocument
    {
        var offset: off_t = 0
        var block = [UInt8](repeating: 0, count: blockSize)
        return try read(limits: limits, attachments: attachments) {
            () throws(ExtractionFailure) -> ArraySlice<UInt8>? in
            let got = block.withUnsafeMutableBytes { buffer in
                retryingInterrupts { pread(descriptor, buffer.baseAddress, buffer.count, offset) }
            }
            guard got >= 0 else {
                throw ExtractionFailure(.damaged, "unreadable: \(String(cString: strerror(errno)).lowercased())")
            }
            offset += off_t(got)
            return got == 0 ? nil : block[..<got]
        }
    }

    /// The mailbox whose blocks `next` returns in order (nil at the end).
    private static func read(
        limits: ExtractionLimits, attachments: AttachmentExtractor?,
        next: () throws(ExtractionFailure) -> ArraySlice<UInt8>?
    ) throws(ExtractionFailure) -> ExtractedDocument {
        var renderer = MailRenderer(extractor: "mbox", limits: limits, attachments: attachments)
        var splitter = MailboxSplitter(maxMessageBytes: limits.maxInputBytes)
        var stoppedBy: String?
        var first = true
        func take(_ message: [UInt8]) throws(ExtractionFailure) {
            guard stoppedBy == nil else { return }
            if renderer.count >= limits.maxMessages {
                stoppedBy = "the \(limits.maxMessages)-message limit"
            } else if try !renderer.mailboxMessage(message[...]) {
                stoppedBy = "the \(ByteSize.format(Int64(limits.maxOutputBytes))) text limit"
            }
            if stoppedBy != nil { splitter.countingOnly = true }
        }
        while let block = try next() {
            if first, block.prefix(8192).contains(0) { throw ExtractionFailure(.damaged, "not a mailbox (binary)") }
            first = false
            for message in splitter.feed(block) { try take(message) }
        }
        if let last = splitter.finish() { try take(last) }
        if let stoppedBy {
            renderer.builder.truncated(
                ExtractedDocument.Truncation(
                    kind: .message, kept: renderer.count, total: splitter.ended, limit: stoppedBy))
        }
        return renderer.builder.finish()
    }
}
