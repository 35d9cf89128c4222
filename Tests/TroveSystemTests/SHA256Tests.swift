import Testing
import TroveSystem

@Suite("SHA-256")
struct SHA256Tests {
    @Test(
        "SHA-256 matches known vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                String(repeating: "a", count: 1_000_000),
                "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
            ),
        ])
    func sha256Vectors(input: String, expected: String) {
        #expect(SHA256.hex(Array(input.utf8)) == expected)
        #expect(SHA256.hex(input.utf8) == expected, "non-contiguous sequences hash the same")
    }

    @Test("SHA-256 of 1 MiB of patterned bytes matches sha256sum, at every block-boundary length")
    func sha256Large() {
        let bytes = (0..<(1 << 20)).map { UInt8($0 % 251) }
        // Computed with `sha256sum` (coreutils).
        #expect(SHA256.hex(bytes) == "631b84027d6b9e52b539c4e8373622d23032dfadc64d60af87339c9037e4f769")
        #expect(SHA256.hex(bytes[0..<55]) == SHA256.hex(Array(bytes[0..<55])))
        #expect(
            SHA256.hex([UInt8](repeating: 0, count: 64))
                == "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b")
    }

    @Test("bytes fed in pieces of any size hash as they do at once")
    func incremental() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for piece in [1, 3, 63, 64, 65, 200] {
            var hasher = SHA256()
            for start in stride(from: 0, to: bytes.count, by: piece) {
                bytes[start..<min(start + piece, bytes.count)].withUnsafeBufferPointer { hasher.update($0) }
            }
            #expect(hasher.finalizeHex() == SHA256.hex(bytes), "pieces of \(piece)")
        }
    }
}
