/// pgvector's text form of a vector, `[0.1,-2e-05,…]`: what a `$n::vector` parameter takes and `embedding::text`
/// returns. Swift prints the shortest decimal that reads back as the same Float, so a vector round-trips exactly.
enum PostgresVector {
    /// `vector` as pgvector text.
    static func text(_ vector: [Float]) -> String {
        var text = "["
        text.reserveCapacity(vector.count * 12)
        for (position, value) in vector.enumerated() {
            if position > 0 { text += "," }
            text += value.description
        }
        return text + "]"
    }

    /// The floats of pgvector text, validated like a SQLite BLOB: `dimension` of them, all finite.
    static func parse(_ text: String, chunkID: Int64, dimension: Int) throws -> [Float] {
        var values: [Float] = []
        values.reserveCapacity(dimension)
        for part in text.utf8.split(whereSeparator: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") || $0 == UInt8(ascii: ",") }) {
            guard let value = Float(Substring(part)), value.isFinite else { throw StoreError.vectorNotFinite(chunkID: chunkID) }
            values.append(value)
        }
        guard values.count == dimension else {
            throw StoreError.vectorLength(chunkID: chunkID, bytes: values.count * 4, dimension: dimension)
        }
        return values
    }

    /// The little-endian float32 bytes of a vector, as SQLite stores it: the two stores' contents compare equal.
    static func bytes(_ vector: [Float]) -> [UInt8] {
        vector.flatMap { value -> [UInt8] in
            let bits = value.bitPattern.littleEndian
            return [UInt8(bits & 0xff), UInt8(bits >> 8 & 0xff), UInt8(bits >> 16 & 0xff), UInt8(bits >> 24)]
        }
    }
}

/// PostgreSQL array literals for `= ANY($n::bigint[])` and `::text[]` parameters: one parameter for any number of
/// values, as `json_each` is on SQLite.
enum PostgresArray {
    /// `{1,2,3}`.
    static func ids(_ ids: [Int64]) -> String { "{" + ids.map(String.init).joined(separator: ",") + "}" }

    /// `{"a","b"}` with `"` and `\` escaped inside each element.
    static func text(_ values: [String]) -> String {
        "{"
            + values.map { value in
                // Scalar by scalar: a `"` followed by a combining mark is one Character, which a Character test misses.
                var quoted = String.UnicodeScalarView()
                quoted.append("\"")
                for scalar in value.unicodeScalars {
                    if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
                    quoted.append(scalar)
                }
                quoted.append("\"")
                return String(quoted)
            }.joined(separator: ",") + "}"
    }
}
