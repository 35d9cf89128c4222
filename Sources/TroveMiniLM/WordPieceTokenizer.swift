import Foundation

/// BERT's uncased WordPiece tokenizer, as `tokenizers`' `BertNormalizer` + `BertPreTokenizer` + `WordPiece` run it
/// for all-MiniLM-L6-v2: clean control characters, space out CJK ideographs, strip accents (NFD, drop marks),
/// lower-case, split at whitespace and punctuation, then greedy longest-match word pieces with `##` continuations.
package struct WordPieceTokenizer: Sendable {
    /// Token id of `[CLS]`, `[SEP]` and `[UNK]`.
    package let classifier: Int32
    package let separator: Int32
    package let unknown: Int32
    /// Number of tokens in the vocabulary.
    package let vocabularySize: Int
    // Keyed by UTF-8 bytes, not String: String equality is canonical equivalence, the reference compares bytes.
    private let vocabulary: Vocabulary
    private var longestToken: Int { vocabulary.longestToken }
    /// Words longer than this many characters become one `[UNK]`, as in the reference.
    package let maxCharactersPerWord = 100

    /// Reads `vocab.txt`: one token per line, the id is the line number from 0.
    package init(vocabularyFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MiniLMError(.missingFile, "cannot read \(path) — install the model: \(ModelFolder.installCommand)")
        }
        try self.init(vocabulary: Vocabulary([UInt8](data)), source: path)
    }

    /// Builds from the text of a `vocab.txt`.
    package init(vocabulary text: String, source: String = "vocab.txt") throws {
        try self.init(vocabulary: Vocabulary(Array(text.utf8)), source: source)
    }

    private init(vocabulary: Vocabulary, source: String) throws {
        func id(_ token: String) throws -> Int32 {
            guard let id = vocabulary.id(Array(token.utf8)) else {
                throw MiniLMError(.badFile, "\(source) has no \(token) token — reinstall the model: \(ModelFolder.installCommand)")
            }
            return id
        }
        self.vocabulary = vocabulary
        vocabularySize = vocabulary.count
        classifier = try id("[CLS]")
        separator = try id("[SEP]")
        unknown = try id("[UNK]")
    }

    /// `[CLS]`, the word pieces of `text`, `[SEP]`; at most `maxLength` ids (the first `maxLength - 1` and `[SEP]`).
    package func encode(_ text: String, maxLength: Int = 512) -> [Int32] {
        var ids: [Int32] = [classifier]
        for word in words(text) {
            appendPieces(of: word, to: &ids)
            if ids.count >= maxLength { break }
        }
        if ids.count > maxLength - 1 { ids.removeLast(ids.count - (maxLength - 1)) }
        ids.append(separator)
        return ids
    }

    /// The normalised, pre-tokenised words of `text` (before word pieces).
    package func words(_ text: String) -> [[Unicode.Scalar]] {
        // Clean: drop NUL, U+FFFD and control characters; whitespace becomes a space; CJK ideographs get spaces.
        var cleaned = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value == 0 || scalar.value == 0xFFFD || Self.isControl(scalar) { continue }
            if Self.isWhitespace(scalar) {
                cleaned.append(" ")
            } else if Self.isCJK(scalar) {
                cleaned.append(" ")
                cleaned.append(scalar)
                cleaned.append(" ")
            } else {
                cleaned.append(scalar)
            }
        }
        // Strip accents (NFD, drop non-spacing marks), then lower-case character by character.
        var words: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        func finish() {
            if !current.isEmpty {
                words.append(current)
                current.removeAll(keepingCapacity: true)
            }
        }
        for scalar in String(cleaned).decomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                if lower.properties.isWhitespace {
                    finish()
                } else if Self.isPunctuation(lower) {
                    finish()
                    words.append([lower])
                } else {
                    current.append(lower)
                }
            }
        }
        finish()
        return words
    }

    private func appendPieces(of word: [Unicode.Scalar], to ids: inout [Int32]) {
        guard word.count <= maxCharactersPerWord else {
            ids.append(unknown)
            return
        }
        let mark = ids.count
        var start = 0
        var key: [UInt8] = []
        while start < word.count {
            var end = min(word.count, start + longestToken)
            var found: Int32?
            while end > start {
                key.removeAll(keepingCapacity: true)
                if start > 0 { key.append(contentsOf: [0x23, 0x23]) }  // "##"
                for scalar in word[start..<end] { key.append(contentsOf: UTF8.encode(scalar)!) }
                if let id = vocabulary.id(key) {
                    found = id
                    break
                }
                end -= 1
            }
            guard let id = found else {
                ids.removeLast(ids.count - mark)
                ids.append(unknown)
                return
            }
            ids.append(id)
            start = end
        }
    }

    /// `\t`, `\n`, `\r` or a Unicode White_Space character.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar.properties.isWhitespace
    }

    /// A control, format, private-use, surrogate or unassigned character, except tab and newlines.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\t" || scalar == "\n" || scalar == "\r" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .unassigned, .privateUse, .surrogate: return true
        default: return false
        }
    }

    /// ASCII punctuation (including `$+<=>^`|~`) or a Unicode punctuation character.
    static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if (33...47).contains(v) || (58...64).contains(v) || (91...96).contains(v) || (123...126).contains(v) {
            return true
        }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// The CJK ideograph blocks BERT spaces out (not Hiragana, Katakana or Hangul).
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F, 0x2B740...0x2B81F,
            0x2B820...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            return true
        default:
            return false
        }
    }
}
