/// One server-sent event: what a blank line dispatches.
public struct SSEEvent: Sendable, Equatable {
    /// The `event:` field; `message` when the server named none.
    public var event: String
    /// The `data:` lines joined with newlines.
    public var data: String
    /// The last `id:` seen, if any.
    public var id: String?

    public init(event: String = "message", data: String, id: String? = nil) {
        self.event = event
        self.data = data
        self.id = id
    }
}

/// Frames a `text/event-stream` body into events, byte chunks in, events out, as the WHATWG rules say: lines end
/// with CRLF, LF or CR (a CR at the end of one chunk and an LF at the start of the next are one line end); `:`
/// starts a comment (keep-alive pings); a field's value loses one leading space; unknown fields are ignored; a
/// blank line dispatches the event if it carried data. An event not closed by a blank line at the end of the
/// stream is dropped, as the rules say, so a cut stream never yields half a JSON object.
public struct SSEFramer: Sendable {
    private var line: [UInt8] = []
    private var afterCR = false
    private var atStart = true
    private var data: [UInt8] = []
    private var hasData = false
    private var event = ""
    private var lastID: String?

    public init() {}

    /// Feeds the next bytes of the body; returns the events they complete.
    public mutating func push(_ bytes: some Sequence<UInt8>) -> [SSEEvent] {
        var events: [SSEEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A:
                if let event = endLine() { events.append(event) }
            case 0x0D:
                afterCR = true
                if let event = endLine() { events.append(event) }
            default:
                line.append(byte)
            }
        }
        return events
    }

    /// The body ended: whatever was not closed by a blank line is dropped. True when nothing was left open.
    public mutating func finish() -> Bool {
        defer { self = SSEFramer() }
        return line.isEmpty && !hasData
    }

    private mutating func endLine() -> SSEEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }  // a byte-order mark
        }
        if line.isEmpty { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }  // a comment
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var value = colon.map { line[line.index(after: $0)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch name {
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case "event":
            event = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { lastID = String(decoding: value, as: UTF8.self) }
        default:
            break  // `retry` and unknown fields
        }
        return nil
    }

    private mutating func dispatch() -> SSEEvent? {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            event = ""
        }
        guard hasData else { return nil }
        return SSEEvent(
            event: event.isEmpty ? "message" : event, data: String(decoding: data, as: UTF8.self), id: lastID)
    }
}
