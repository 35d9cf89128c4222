import Foundation

/// The probe vector as manifest text: base64 of little-endian float32s (the manifest is a TEXT key/value table).
package enum ProbeVectorText {
    package static func encode(_ vector: [Float]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(vector.count * 4)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        return Data(bytes).base64EncodedString()
    }

    package static func decode(_ text: String) -> [Float]? {
        guard let data = Data(base64Encoded: text), data.count % 4 == 0, !data.isEmpty else { return nil }
        let bytes = [UInt8](data)
        let vector = stride(from: 0, to: bytes.count, by: 4).map { offset in
            Float(bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                | UInt32(bytes[offset + 3]) << 24)
        }
        return vector.allSatisfy(\.isFinite) ? vector : nil
    }
}
