/// Text whose charset was declared by its container (an HTML page's `<meta charset>`, a mail part's `charset=`): the
/// declaration is honoured when iconv knows it, and otherwise the bytes are read as `DocumentLoader` reads a file.
package enum DeclaredText {
    /// `bytes` in the first of `charsets` that iconv knows (a UTF-8 one ends the search: read as UTF-8, never guessed),
    /// else as UTF-8 when valid, else in the encoding detected for them (`LegacyText`), else as UTF-8 with U+FFFD; with
    /// the charset used when it was not UTF-8. Bytes a declared charset cannot read become U+FFFD.
    package static func decode(_ bytes: some Collection<UInt8>, charsets: [String])
        -> (text: String, encoding: String?)
    {
        var saysUTF8 = false
        for charset in charsets where !charset.isEmpty {
            if ["utf-8", "utf8", "us-ascii", "ascii"].contains(charset.lowercased()) {
                saysUTF8 = true
                break
            }
            if let decoded = CharsetDecoder.decode(bytes, from: charset) { return (decoded.text, charset) }
        }
        let bytes = Array(bytes)
        if let valid = String(validating: bytes, as: UTF8.self) { return (valid, nil) }
        if !saysUTF8, let legacy = LegacyText.decode(bytes) { return (legacy.text, legacy.encoding) }
        return (String(decoding: bytes, as: UTF8.self), nil)
    }
}
