/// A message or body part: its header block and its raw body (RFC 5322, RFC 2045–2046).
struct MIMEEntity {
    let headers: MailHeaders
    let body: ArraySlice<UInt8>

    /// Splits `bytes` at the first empty line (LF or CRLF); without one, all of it is headers.
    init(_ bytes: ArraySlice<UInt8>) {
        var index = bytes.startIndex
        var lineStart = index
        while index < bytes.endIndex {
            if bytes[index] == 0x0A {
                let line = bytes[lineStart..<index]
                if line.isEmpty || line.elementsEqual([0x0D]) {
                    headers = MailHeaders(bytes[bytes.startIndex..<lineStart])
                    body = bytes[(index + 1)...]
                    return
                }
                lineStart = index + 1
            }
            index += 1
        }
        headers = MailHeaders(bytes)
        body = bytes[bytes.endIndex...]
    }

    /// The body with its transfer encoding undone.
    var decodedBody: [UInt8] {
        TransferDecoding.decode(body, encoding: headers["content-transfer-encoding"])
    }

    /// The parts of a multipart body, cut at the lines `--boundary` (the last one `--boundary--`); the preamble and
    /// epilogue are dropped. Each part's line break before its delimiter belongs to the delimiter.
    func parts(boundary: String) -> [ArraySlice<UInt8>] {
        let delimiter = Array("--".utf8) + Array(boundary.utf8)
        var parts: [ArraySlice<UInt8>] = []
        var partStart: Int?
        var lineStart = body.startIndex
        while lineStart < body.endIndex {
            let lineEnd = body[lineStart...].firstIndex(of: 0x0A) ?? body.endIndex
            let line = body[lineStart..<lineEnd]
            if line.starts(with: delimiter) {
                let after = line.dropFirst(delimiter.count)
                let closing = after.starts(with: [0x2D, 0x2D])
                if closing || after.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                    if let start = partStart {
                        // Drop the line break (LF or CRLF) that ends the part's last line.
                        var end = max(start, lineStart - 1)
                        if end > start, body[end - 1] == 0x0D { end -= 1 }
                        parts.append(body[start..<end])
                    }
                    if closing { return parts }
                    partStart = min(lineEnd + 1, body.endIndex)
                }
            }
            lineStart = lineEnd + 1
        }
        // No closing delimiter (a truncated message): the last part runs to the end.
        if let start = partStart, start < body.endIndex { parts.append(body[start...]) }
        return parts
    }
}
