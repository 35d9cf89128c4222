///
/// The rule, over UTF-8: a run of ASCII letters and digits of length n counts `ceil(n/4) + 1`; every other
/// printable ASCII character (punctuation, symbols) counts 1; every non-ASCII scalar counts 1 (CJK, accents,
/// emoji); spaces, tabs and line breaks count 0. Real tokenizers give about 1.3 tokens per English word; this gives
/// about 2, so a chunk within the estimate fits a model's window with room to spare.
package enum TokenEstimate {
    package static func count<S: StringProtocol>(_ text: S) -> Int {
        var total = 0
        var run = 0
        for byte in text.utf8 {
            if byte < 0x80 {
                let isAlphanumeric =
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                if isAlphanumeric {
                    run += 1
                    continue
                }
                if run > 0 {
                    total += (run + 3) / 4 + 1
                    run = 0
                }
                if byte > 0x20 && byte != 0x7F { total += 1 }
            } else {
                if run > 0 {
                    total += (run + 3) / 4 + 1
                    run = 0
                }
                if byte & 0xC0 != 0x80 { total += 1 }
            }
        }
        if run > 0 { total += (run + 3) / 4 + 1 }
        return total
    }
}
