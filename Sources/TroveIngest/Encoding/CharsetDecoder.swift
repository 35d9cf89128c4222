#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text in a named charset (Windows-1252, Shift_JIS, GB18030, EUC-KR, …) decoded with the C library's iconv.
package enum CharsetDecoder {
    /// `bytes` read as `charset` (any name iconv knows, case-insensitive), each byte sequence invalid in it replaced
    /// with U+FFFD and counted; nil when iconv does not know the charset.
    package static func decode(_ bytes: some Collection<UInt8>, from charset: String)
        -> (text: String, replaced: Int)?
    {
        let converter = iconv_open("UTF-8", charset)
        guard let converter, Int(bitPattern: converter) != -1 else { return nil }
        defer { iconv_close(converter) }
        var input = Array(bytes)
        // UTF-8 takes at most 4 bytes for one input byte (GB18030's 4-byte sequences make 4); more is asked for below
        // if a charset ever needs it.
        var output = [UInt8](repeating: 0, count: input.count * 4 + 16)
        var written = 0
        var replaced = 0
        input.withUnsafeMutableBufferPointer { inputBuffer in
            var inputPointer = UnsafeMutableRawPointer(inputBuffer.baseAddress)?.assumingMemoryBound(to: CChar.self)
            var inputLeft = inputBuffer.count
            while inputLeft > 0 {
                let (result, code) = output.withUnsafeMutableBufferPointer { outputBuffer in
                    var outputPointer: UnsafeMutablePointer<CChar>? =
                        UnsafeMutableRawPointer(outputBuffer.baseAddress! + written).assumingMemoryBound(to: CChar.self)
                    var outputLeft = outputBuffer.count - written
                    let result = iconv(converter, &inputPointer, &inputLeft, &outputPointer, &outputLeft)
                    let code = errno
                    written = outputBuffer.count - outputLeft
                    return (result, code)
                }
                guard result == -1 else { break }
                switch code {
                case E2BIG:
                    output.append(contentsOf: repeatElement(0, count: max(64, output.count / 2)))
                case EILSEQ, EINVAL:
                    // An invalid sequence, or an incomplete one at the end: one byte becomes U+FFFD, and on.
                    if output.count - written < 3 { output.append(contentsOf: repeatElement(0, count: 64)) }
                    output.replaceSubrange(written..<written + 3, with: [0xEF, 0xBF, 0xBD])
                    written += 3
                    replaced += 1
                    inputPointer! += 1
                    inputLeft -= 1
                default:
                    return
                }
            }
        }
        return (String(decoding: output[..<written], as: UTF8.self), replaced)
    }
}
