#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The on-disk vector format: `dimension` little-endian IEEE-754 float32 values, `dimension * 4` bytes, no header.
enum VectorBlob {
    /// Calls `body` with the BLOB bytes of `vector`.
    static func withBytes<T>(of vector: [Float], _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        #if _endian(big)
            let littleEndian = vector.map { $0.bitPattern.littleEndian }
            return try littleEndian.withUnsafeBytes(body)
        #else
            // Little-endian hosts (x86-64, arm64) store the array's own bytes: no copy.
            return try vector.withUnsafeBytes(body)
        #endif
    }

    /// Whether every value is finite (no NaN, no ±infinity).
    static func isFinite(_ values: UnsafeBufferPointer<Float>) -> Bool {
        // Bit test instead of `isFinite` per element: a max over masked bits vectorizes.
        // Non-finite means an all-ones exponent, i.e. |bits| >= 0x7F80_0000.
        values.withMemoryRebound(to: UInt32.self) { bits in
            var largest: UInt32 = 0
            for bit in bits { largest = max(largest, bit & 0x7FFF_FFFF) }
            return largest < 0x7F80_0000
        }
    }

    /// Copies one validated BLOB into `destination` (which has room for `dimension` floats).
    /// Throws `.corruptVector` naming `chunkID` when the length is wrong or a value is not finite.
    static func decode(
        _ blob: UnsafeRawBufferPointer, chunkID: Int64, dimension: Int, into destination: UnsafeMutablePointer<Float>
    ) throws {
        guard blob.count == dimension * 4 else {
            throw StoreError.vectorLength(chunkID: chunkID, bytes: blob.count, dimension: dimension)
        }
        if dimension > 0, let source = blob.baseAddress {
            // The BLOB pointer has no alignment guarantee; memcpy is the safe (and fastest) way to lift it.
            memcpy(destination, source, blob.count)
        }
        #if _endian(big)
            for index in 0..<dimension {
                destination[index] = Float(bitPattern: UInt32(littleEndian: destination[index].bitPattern))
            }
        #endif
        guard isFinite(UnsafeBufferPointer(start: destination, count: dimension)) else {
            throw StoreError.vectorNotFinite(chunkID: chunkID)
        }
    }
}
