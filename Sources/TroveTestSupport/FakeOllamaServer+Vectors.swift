/// The bag-of-words vectors the fake embeds into, and the stable digests it reports.
extension FakeOllamaServer {
    /// The deterministic vector the server returns for `text`: a normalized hashed bag of lowercased words.
    ///
    /// Each alphanumeric word adds ±1 to one bucket, both chosen by its FNV-1a hash, so texts that share words
    /// have a high cosine. A text without words gets a fixed unit vector.
    /// Task prefixes such as nomic's `search_query: ` are instructions to a real model, not content: like one, the
    /// fake does not let them make every query resemble every document.
    public static func embedding(for text: String, dimension: Int) -> [Float] {
        embedding(hashes: wordHashes(of: String(withoutTaskPrefix(text))), dimension: dimension)
    }

    static func withoutTaskPrefix(_ text: String) -> Substring {
        for prefix in ["search_query: ", "search_document: ", "query: ", "passage: "] where text.hasPrefix(prefix) {
            return text.dropFirst(prefix.count)
        }
        return text[...]
    }

    /// The vector for words already hashed by `wordHashes(of:)`.
    static func embedding(hashes: [UInt64], dimension: Int) -> [Float] {
        precondition(dimension > 0, "dimension must be positive")
        var vector = [Float](repeating: 0, count: dimension)
        for hash in hashes {
            vector[Int(hash % UInt64(dimension))] += (hash >> 63) == 0 ? 1 : -1
        }
        let norm = vector.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
        guard norm > 0 else {
            var unit = [Float](repeating: 0, count: dimension)
            unit[0] = 1
            return unit
        }
        return vector.map { $0 / norm }
    }

    /// The FNV-1a hash of each lowercased alphanumeric word of `text`, in order.
    static func wordHashes(of text: String) -> [UInt64] {
        let basis: UInt64 = 0xcbf2_9ce4_8422_2325
        var hashes: [UInt64] = []
        var hash = basis
        var inWord = false
        func add(_ byte: UInt8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            inWord = true
        }
        func endWord() {
            if inWord { hashes.append(hash) }
            hash = basis
            inWord = false
        }
        // An ASCII fast path keeps debug-build tests quick on megabyte batches.
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                let byte = UInt8(value)
                switch byte {
                case 0x30...0x39, 0x61...0x7a: add(byte)
                case 0x41...0x5a: add(byte + 0x20)
                default: endWord()
                }
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                for byte in scalar.properties.lowercaseMapping.utf8 { add(byte) }
            } else {
                endWord()
            }
        }
        endWord()
        return hashes
    }

    /// 64-bit FNV-1a of the UTF-8 bytes of `text`, from `seed` (the standard offset basis by default).
    static func fnv1a(_ text: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// 64 hex digits derived from `name`, stable across runs.
    static func digest(of name: String) -> String {
        (0..<4).map { part in
            let hash = fnv1a(name, seed: 0xcbf2_9ce4_8422_2325 &+ UInt64(part) &* 0x9e37_79b9_7f4a_7c15)
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
