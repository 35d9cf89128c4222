import Glibc

/// Cuts an mbox, fed block by block, into messages: each without its `From ` line and with mboxrd's quoting
/// (`>From `, `>>From `…) undone by one level. Text before the first `From ` line is a message only when the file has
/// no `From ` line at all (a file that is one bare message). Only the message being gathered is held.
struct MailboxSplitter {
    /// The largest message gathered: past it, the rest of the message is dropped (its start is still read).
    let maxMessageBytes: Int
    /// Messages are counted, no longer gathered (after a cap stopped the reading).
    var countingOnly = false
    /// Messages ended so far, gathered or counted.
    private(set) var ended = 0
    private var current: [UInt8] = []
    private var currentHasText = false
    private var started = false
    /// The start of a line the last block cut.
    private var partial: [UInt8] = []
    private static let from = Array("From ".utf8)

    /// A splitter holding messages up to `maxMessageBytes`.
    init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// The messages that end in `block` (none while counting only).
    mutating func feed(_ block: ArraySlice<UInt8>) -> [[UInt8]] {
        var done: [[UInt8]] = []
        var start = block.startIndex
        while start < block.endIndex {
            guard let newline = Self.newline(in: block[start...]) else {
                partial += block[start...]
                if partial.count > maxMessageBytes {
                    // A line longer than any message kept (binary junk): taken as it stands.
                    line(partial[...], into: &done)
                    partial = []
                }
                break
            }
            if partial.isEmpty {
                line(block[start...newline], into: &done)
            } else {
                partial += block[start...newline]
                line(partial[...], into: &done)
                partial = []
            }
            start = newline + 1
        }
        return done
    }

    /// The last message, if any, once the input has ended.
    mutating func finish() -> [UInt8]? {
        var done: [[UInt8]] = []
        if !partial.isEmpty { line(partial[...], into: &done) }
        partial = []
        guard currentHasText || (countingOnly && started) else { return done.first }
        ended += 1
        return countingOnly ? nil : current
    }

    /// Takes one line (with its line break).
    private mutating func line(_ line: ArraySlice<UInt8>, into done: inout [[UInt8]]) {
        if line.starts(with: Self.from) {
            if started {
                ended += 1
                if !countingOnly { done.append(current) }
            }
            current = []
            currentHasText = false
            started = true
            return
        }
        if !currentHasText { currentHasText = line.contains { $0 != 0x0A && $0 != 0x0D } }
        guard !countingOnly, current.count < maxMessageBytes else { return }
        let quotes = line.prefix { $0 == UInt8(ascii: ">") }.count
        current += quotes > 0 && line.dropFirst(quotes).starts(with: Self.from) ? line.dropFirst() : line
    }

    /// The index of the first line feed in `bytes` (memchr: the splitter reads whole mailboxes).
    private static func newline(in bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress, let found = memchr(base, 0x0A, buffer.count) else { return nil }
            return bytes.startIndex + (UnsafeRawPointer(found) - UnsafeRawPointer(base))
        }
    }
}
