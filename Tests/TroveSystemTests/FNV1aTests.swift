import Testing
import TroveSystem

@Suite("FNV-1a")
struct FNV1aTests {
    @Test(
        "FNV-1a 64 matches the reference vectors",
        arguments: [
            ("", 0xcbf2_9ce4_8422_2325 as UInt64), ("a", 0xaf63_dc4c_8601_ec8c), ("foobar", 0x8594_4171_f739_67e8),
        ])
    func vectors(text: String, expected: UInt64) {
        #expect(FNV1a.hash(text.utf8) == expected)
        var hasher = FNV1a()
        for byte in text.utf8 { hasher.combine(byte) }
        #expect(hasher.value == expected)
    }

    @Test("a wider word is mixed in whole, as the cache checksums have always done")
    func words() {
        var hasher = FNV1a()
        hasher.combine(UInt32(0xDEAD_BEEF))
        let expected: UInt64 = (0xcbf2_9ce4_8422_2325 ^ 0xDEAD_BEEF) &* 0x100_0000_01B3
        #expect(hasher.value == expected)
    }
}
