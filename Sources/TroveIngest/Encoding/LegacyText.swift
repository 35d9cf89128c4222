/// Text that is not valid UTF-8 read in the legacy encoding it was written in (a Latin-1 note, a Shift_JIS memo).
package enum LegacyText {
    /// `bytes` decoded in the encoding detected for them, with that encoding's name; nil when none fits (nothing is
    /// detected, the detector says UTF-8 after all, or the detected encoding cannot read every byte), so that the
    /// caller falls back to UTF-8 with U+FFFD.
    package static func decode(_ bytes: some Collection<UInt8>) -> (text: String, encoding: String)? {
        guard let detected = CharsetDetector.detect(bytes), !["UTF-8", "ASCII"].contains(detected.uppercased()),
            let decoded = CharsetDecoder.decode(bytes, from: detected), decoded.replaced == 0
        else { return nil }
        return (decoded.text, detected)
    }
}
