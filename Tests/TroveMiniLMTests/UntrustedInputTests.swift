import Foundation
import Testing

@testable import TroveMiniLM
import TroveTestTraits

/// A damaged `model.safetensors` and out-of-range token ids are errors, never a trap or an out-of-bounds read.
@Suite("Untrusted model files and token ids", .offCooperativePool)
struct UntrustedInputTests {
    private func file(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "trove-safetensors-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func headerLength(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    private func message(_ bytes: [UInt8]) throws -> String? {
        let path = try file(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try SafeTensors(path: path)
            return nil
        } catch let error as MiniLMError {
            #expect(error.code == .badFile)
            return error.message.replacingOccurrences(of: path, with: "FILE")
        }
    }

    @Test("a header length of 2^64-1 (above Int.max) is out of range")
    func hugeHeader() throws {
        let found = try message(headerLength(.max) + Array("{}".utf8))
        #expect(
            found == "FILE is not a safetensors file: header length 18446744073709551615 out of range (file of 10 bytes)"
                + " — reinstall the model: trove models install builtin")
    }

    @Test("a header longer than the file, or a file shorter than 8 bytes, is refused")
    func truncated() throws {
        #expect(try message(headerLength(100) + Array("{}".utf8))?.contains("header length 100 out of range") == true)
        #expect(try message([1, 2, 3]) == "FILE is not a safetensors file: shorter than its 8-byte header length")
    }

    @Test("tensor offsets near Int.max or negative, and negative shapes, are malformed entries")
    func hostileOffsets() throws {
        for entry in [
            #"{"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 9223372036854775807]}}"#,
            #"{"t": {"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]}}"#,
            #"{"t": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}"#,
        ] {
            let json = Array(entry.utf8) + [UInt8](repeating: 0x20, count: 4)
            let found = try message(headerLength(UInt64(json.count)) + json + [0, 0, 0, 0])
            #expect(found == "FILE: tensor 't' has a malformed header entry")
        }
    }

    @Test("a shape whose byte count overflows does not match any tensor")
    func overflowingShape() {
        #expect(SafeTensors.byteCount([1 << 40, 1 << 40]) == nil)
        #expect(SafeTensors.byteCount([384, 2]) == 3072)
    }

    @Test(
        "embed(tokens:) refuses ids outside the vocabulary and sequences of 0 or more than 512 ids",
        .enabled(if: InstalledModel.isInstalled, InstalledModel.skipReason))
    func tokenChecks() throws {
        let model = try #require(InstalledModel.model)
        let size = model.tokenizer.vocabularySize
        let cases: [([[Int32]], String)] = [
            ([[101, Int32(size), 102]], "token sequence 0 holds id \(size), outside the vocabulary of \(size)"),
            ([[101, 102], [101, -1, 102]], "token sequence 1 holds id -1, outside the vocabulary of \(size)"),
            ([[]], "token sequence 0 has 0 ids, expected 1 to 512"),
            ([[Int32](repeating: 101, count: 513)], "token sequence 0 has 513 ids, expected 1 to 512"),
        ]
        for (tokens, expected) in cases {
            #expect(throws: MiniLMError(.badInput, expected)) { try model.embed(tokens: tokens, threads: 1) }
        }
        #expect(try model.embed(tokens: [[101, 102]], threads: 1).first?.count == 384)
    }
}
