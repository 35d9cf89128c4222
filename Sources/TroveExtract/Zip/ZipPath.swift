/// Resolving the references one part of a container makes to another (OOXML relationship targets, OPF and
/// container.xml hrefs) into entry names: relative to the referring part's folder, percent-decoded, `#fragment`
/// dropped, `.` and `..` applied (never above the archive's root).
enum ZipPath {
    /// The entry name `reference` points at from the part named `base` (e.g. `slides/slide1.xml` from
    /// `ppt/presentation.xml` is `ppt/slides/slide1.xml`), or nil for an external URI or an empty reference.
    static func resolve(_ reference: String, from base: String) -> String? {
        var reference = Substring(reference)
        if let hash = reference.firstIndex(of: "#") { reference = reference[..<hash] }
        if let query = reference.firstIndex(of: "?") { reference = reference[..<query] }
        guard !reference.isEmpty, !isExternal(reference) else { return nil }
        var parts: [Substring] = []
        if !reference.hasPrefix("/") {
            parts = base.split(separator: "/", omittingEmptySubsequences: true)
            if !parts.isEmpty { parts.removeLast() }  // the referring part's own name
        }
        for piece in reference.split(separator: "/", omittingEmptySubsequences: true) {
            switch piece {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(piece)
            }
        }
        let joined = parts.joined(separator: "/")
        return joined.isEmpty ? nil : percentDecoded(joined)
    }

    /// Whether the reference starts with a URI scheme (`http:`, `mailto:`, `file:`).
    private static func isExternal(_ reference: Substring) -> Bool {
        guard let colon = reference.firstIndex(of: ":") else { return false }
        let scheme = reference[..<colon]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }

    /// `%20` and the like decoded as UTF-8; a malformed escape is kept as written.
    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, utf8.prefix(2).allSatisfy({ $0.isHexDigit }),
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension UInt8 {
    /// 0-9, a-f, A-F.
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
