/// Content-Transfer-Encodings (RFC 2045): base64 and quoted-printable, decoded leniently (a stray character is
/// skipped, a broken escape kept), as mail readers do.
enum TransferDecoding {
    /// Decodes `body` by the `Content-Transfer-Encoding` named (7bit, 8bit and binary are the bytes themselves).
    static func decode(_ body: ArraySlice<UInt8>, encoding: String?) -> [UInt8] {
        switch encoding?.lowercased().trimmingSpaces {
        case "base64": base64(body)
        case "quoted-printable": quotedPrintable(body)
        default: Array(body)
        }
    }

    /// Base64, ignoring every byte outside the alphabet and stopping at padding.
    static func base64(_ text: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="): return output
            default: continue
            }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return output
    }

    /// Quoted-printable: `=XX` escapes, soft line breaks (`=` at a line's end) removed.
    static func quotedPrintable(_ text: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            guard byte == UInt8(ascii: "=") else {
                output.append(byte)
                index += 1
                continue
            }
            let next = text[(index + 1)...].prefix(2)
            if next.first == 0x0A {
                index += 2
            } else if next.elementsEqual([0x0D, 0x0A]) {
                index += 3
            } else if next.count == 2, let high = hex(next.first!), let low = hex(next.last!) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    /// The value of a hexadecimal digit.
    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
