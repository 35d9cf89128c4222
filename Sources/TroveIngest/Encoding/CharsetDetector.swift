import CUchardet

/// Guesses the charset of text that is not UTF-8, with uchardet (Mozilla's universal charset detector).
package enum CharsetDetector {
    /// Bytes the detector reads at most: enough for it to be sure, cheap on a large file.
    static let sampleLength = 1 << 20

    /// The charset uchardet names for `bytes` (iconv's spelling, e.g. `WINDOWS-1252`, `SHIFT_JIS`), or nil when it
    /// cannot tell.
    package static func detect(_ bytes: some Collection<UInt8>) -> String? {
        guard let detector = uchardet_new() else { return nil }
        defer { uchardet_delete(detector) }
        let sample = Array(bytes.prefix(sampleLength))
        let status = sample.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { uchardet_handle_data(detector, $0.baseAddress, $0.count) }
        }
        guard status == 0 else { return nil }
        uchardet_data_end(detector)
        guard let name = uchardet_get_charset(detector).map({ String(cString: $0) }), !name.isEmpty else { return nil }
        return name
    }
}
