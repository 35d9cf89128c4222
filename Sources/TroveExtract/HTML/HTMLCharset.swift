import TroveIngest

/// The charset of a page's bytes and their text as UTF-8, decided before libxml2 sees them: libxml2's own switch to a
/// declared charset goes through iconv without recovery, so one byte the charset lacks (0x81 in Windows-1252) would
/// end the page there, silently.
enum HTMLCharset {
    /// How far a declaration is looked for, as browsers' prescan does (HTML's "1024 bytes", with room for long heads).
    static let prescanLength = 4096

    /// `bytes` as UTF-8, and the charset they were read in when it was not UTF-8. The charset is, in order: `given`
    /// (a mail part's `charset=`), a byte-order mark, the page's own `<meta charset>`, `http-equiv` or XML
    /// declaration, UTF-8 when the bytes are valid UTF-8, the one uchardet detects (unless UTF-8 was declared); a
    /// charset iconv does not know counts as none. Bytes a charset cannot read become U+FFFD.
    static func utf8(_ bytes: [UInt8], given: String?) -> (bytes: [UInt8], encoding: String?) {
        let charsets = [given, byteOrderMark(bytes), declared(in: bytes)].compactMap { $0 }
        let text = DeclaredText.decode(body(bytes), charsets: charsets)
        return (Array(text.text.utf8), text.encoding)
    }

    /// The charset a byte-order mark names.
    static func byteOrderMark(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return "UTF-8" }
        if bytes.starts(with: [0xFF, 0xFE]) { return "UTF-16LE" }
        if bytes.starts(with: [0xFE, 0xFF]) { return "UTF-16BE" }
        return nil
    }

    /// The bytes after a byte-order mark.
    static func body(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        switch byteOrderMark(bytes) {
        case "UTF-8": bytes.dropFirst(3)
        case nil: bytes[...]
        default: bytes.dropFirst(2)
        }
    }

    /// The charset the page declares near its start: `charset=NAME` (in `<meta charset>` or an `http-equiv`
    /// content type) or the XML declaration's `encoding="NAME"`.
    static func declared(in bytes: [UInt8]) -> String? {
        let head = Array(bytes.prefix(prescanLength).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 })
        for key in ["charset", "encoding"] {
            var start = 0
            while let found = find(Array(key.utf8), in: head, from: start) {
                start = found + key.utf8.count
                var index = start
                while index < head.count, head[index] == 0x20 { index += 1 }
                guard index < head.count, head[index] == UInt8(ascii: "=") else { continue }
                index += 1
                while index < head.count, [0x20, 0x22, 0x27].contains(head[index]) { index += 1 }
                let name = head[index...].prefix { byte in
                    (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte)
                        || [0x2D, 0x5F, 0x2E, 0x3A].contains(byte)
                }
                if !name.isEmpty, key == "charset" || bytes.starts(with: Array("<?xml".utf8)) {
                    return String(decoding: name, as: UTF8.self)
                }
            }
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `start`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index] == needle[0], haystack[index..<index + needle.count].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
