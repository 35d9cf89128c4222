import Foundation
import Testing

@testable import TroveMiniLM
import TroveTestTraits

struct TokenCase: Decodable, CustomTestStringConvertible, Sendable {
    var text: String
    var ids: [Int32]
    var testDescription: String { String(text.prefix(40)) }
}

let tokenCases: [TokenCase] = (try? JSONDecoder().decode([TokenCase].self, from: fixture("tokens.json"))) ?? []

@Suite("WordPiece tokenizer", .offCooperativePool)
struct TokenizerTests {
    @Test("the fixture of tricky strings is there")
    func fixtureLoads() {
        #expect(tokenCases.count == 15)
    }

    @Test(
        "token ids equal the reference tokenizer's", .enabled(if: InstalledModel.isInstalled, InstalledModel.skipReason),
        arguments: tokenCases)
    func matchesReference(_ example: TokenCase) throws {
        let tokenizer = try #require(InstalledModel.model).tokenizer
        #expect(tokenizer.encode(example.text) == example.ids)
    }

    @Test("a small vocabulary: lower-casing, accents, punctuation, ## pieces, [UNK] and truncation")
    func smallVocabulary() throws {
        let vocabulary = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "cafe", "!", "東", "a"]
        let tokenizer = try WordPieceTokenizer(vocabulary: vocabulary.joined(separator: "\n") + "\n")
        #expect(tokenizer.encode("UNaffable Café! 東x") == [2, 4, 5, 6, 7, 8, 9, 1, 3])
        #expect(tokenizer.encode("a a a a a", maxLength: 4) == [2, 10, 10, 3])
        #expect(tokenizer.encode(String(repeating: "a", count: 101)) == [2, 1, 3])
        #expect(tokenizer.encode("") == [2, 3])
    }

    @Test("a vocabulary without [CLS] is refused with a hint")
    func missingSpecialToken() {
        #expect(throws: MiniLMError(.badFile, "vocab.txt has no [CLS] token — reinstall the model: trove models install builtin")) {
            try WordPieceTokenizer(vocabulary: "[UNK]\n[SEP]\n")
        }
    }
}
