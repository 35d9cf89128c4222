/// The tokens of a `vocab.txt` by their UTF-8 bytes: an open-addressing hash table of token ids over the file's own
/// bytes. Building it hashes each line once and allocates four arrays; a `[[UInt8]: Int32]` dictionary allocated one
/// array per token and took ~12 ms of every process that embeds (BENCHMARKS.md#model-load), this takes well under one.
struct Vocabulary: Sendable {
    /// Number of lines, i.e. of token ids (a repeated token keeps its first id, as in the reference).
    let count: Int
    /// The longest token, in Unicode scalars.
    let longestToken: Int
    private let bytes: [UInt8]
    /// Token `id` is `bytes[starts[id]..<starts[id] + lengths[id]]`.
    private let starts: [Int32]
    private let lengths: [Int32]
    /// Token id + 1 per slot, 0 for an empty one; the size is a power of two at least twice `count`.
    private let slots: [Int32]

    /// Parses `bytes`: one token per line (`\n`, a trailing `\r` dropped), the id is the line number from 0; a final
    /// newline does not start another token.
    init(_ bytes: [UInt8]) {
        var starts: [Int32] = []
        var lengths: [Int32] = []
        var longest = 0
        var start = 0
        bytes.withUnsafeBufferPointer { buffer in
            var scalars = 0
            for index in 0...buffer.count {
                let end = index == buffer.count
                if !end && buffer[index] != 0x0A {
                    // Every byte that does not continue a UTF-8 sequence starts a scalar.
                    if buffer[index] & 0xC0 != 0x80 { scalars += 1 }
                    continue
                }
                if end && start == buffer.count { break }
                var length = index - start
                if length > 0, buffer[index - 1] == 0x0D {
                    length -= 1
                    scalars -= 1
                }
                starts.append(Int32(start))
                lengths.append(Int32(length))
                longest = max(longest, scalars)
                scalars = 0
                start = index + 1
            }
        }
        var size = 1
        while size < 2 * max(starts.count, 1) { size <<= 1 }
        var slots = [Int32](repeating: 0, count: size)
        bytes.withUnsafeBufferPointer { buffer in
            for id in starts.indices {
                let token = UnsafeBufferPointer(rebasing: buffer[Int(starts[id])..<Int(starts[id] + lengths[id])])
                var slot = Self.hash(token) & (size - 1)
                while slots[slot] != 0 {
                    let other = Int(slots[slot] - 1)
                    if Self.equal(
                        token,
                        UnsafeBufferPointer(rebasing: buffer[Int(starts[other])..<Int(starts[other] + lengths[other])]))
                    {
                        break
                    }
                    slot = (slot + 1) & (size - 1)
                }
                if slots[slot] == 0 { slots[slot] = Int32(id + 1) }
            }
        }
        self.bytes = bytes
        self.starts = starts
        self.lengths = lengths
        self.slots = slots
        count = starts.count
        longestToken = longest
    }

    /// The id of the token spelled by `key`, if the vocabulary has it.
    func id(_ key: [UInt8]) -> Int32? {
        key.withUnsafeBufferPointer { key in
            bytes.withUnsafeBufferPointer { buffer in
                let mask = slots.count - 1
                var slot = Self.hash(key) & mask
                while true {
                    let entry = slots[slot]
                    if entry == 0 { return nil }
                    let id = Int(entry - 1)
                    let start = Int(starts[id])
                    if Self.equal(key, UnsafeBufferPointer(rebasing: buffer[start..<start + Int(lengths[id])])) {
                        return Int32(id)
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// FNV-1a: byte at a time, good enough spread for 30k short tokens.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash)
    }

    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }
}
