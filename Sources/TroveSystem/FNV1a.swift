/// FNV-1a, 64 bits: a fast hash for cache keys, file names and checksums against damage, never against an attacker
/// (anyone can make two inputs of one hash).
package struct FNV1a: Sendable, Equatable {
    /// The hash of what was combined so far.
    package private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    /// The hash of nothing (FNV's offset basis).
    package init() {}

    /// Mixes in one unit: a byte, or a wider word taken whole (FNV-1a's step on that word, not on its bytes).
    package mutating func combine(_ unit: some FixedWidthInteger & UnsignedInteger) {
        value = (value ^ UInt64(unit)) &* 0x100_0000_01B3
    }

    /// Mixes in `bytes` one at a time.
    package mutating func combine(bytes: some Sequence<UInt8>) {
        for byte in bytes { combine(byte) }
    }

    /// The hash of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hasher = FNV1a()
        hasher.combine(bytes: bytes)
        return hasher.value
    }
}
