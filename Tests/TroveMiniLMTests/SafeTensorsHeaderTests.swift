import Foundation
import Testing

@testable import TroveMiniLM
import TroveTestTraits

/// `SafeTensorsHeader` reads the header's JSON by hand: it must read what `JSONSerialization` reads, and refuse what
/// is not one JSON object, without a trap.
@Suite("safetensors header reader")
struct SafeTensorsHeaderTests {
    private func parse(_ text: String) -> [String: SafeTensorsHeader.Entry]? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { SafeTensorsHeader.parse(UnsafeRawBufferPointer($0)) }
    }

    @Test("entries as JSONSerialization reads them: escapes, unknown keys, nested metadata, whitespace")
    func sameAsFoundation() throws {
        let text = """
             {"__metadata__": {"format": "pt", "nested": [1, 2.5e-3, {"a": [true, false, null]}], "s": "\\u00e9"},
              "encoder.layer.0.w": {"dtype": "F32", "shape": [384, 1536], "data_offsets": [0, 2359296], "x": {}},
              "t\\"q\\\\\\/\\n\\u00e9\\ud83d\\ude00": {"data_offsets": [8, 12], "shape": [], "dtype": "I64"},
              "odd": {"dtype": 5, "shape": [1.5], "data_offsets": "no"} }\t\n
            """
        let entries = try #require(parse(text))
        let reference = try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Set(entries.keys) == Set(reference.keys))
        let weight = try #require(entries["encoder.layer.0.w"])
        #expect(weight.dtype == "F32" && weight.shape == [384, 1536] && weight.offsets == [0, 2_359_296])
        let escaped = try #require(entries["t\"q\\/\né😀"])
        #expect(escaped.dtype == "I64" && escaped.shape == [] && escaped.offsets == [8, 12])
        // Fields of the wrong type are absent, so SafeTensors calls the entry malformed.
        let odd = try #require(entries["odd"])
        #expect(odd.dtype == nil && odd.shape == nil && odd.offsets == nil)
    }

    @Test("the real model's header reads as Python's json reads it", .enabled(if: InstalledModel.isInstalled))
    func realHeader() throws {
        let model = try #require(InstalledModel.model)
        let file = try SafeTensors(path: model.folder + "/model.safetensors")
        let bytes = file.bytes
        let length = Int(bytes.loadUnaligned(as: UInt64.self).littleEndian)
        let reference = try #require(
            try JSONSerialization.jsonObject(with: Data(bytes[8..<(8 + length)])) as? [String: [String: Any]])
        #expect(file.tensors.count == reference.count - 1)
        for (name, tensor) in file.tensors {
            let entry = try #require(reference[name])
            #expect(entry["dtype"] as? String == tensor.dtype)
            #expect(entry["shape"] as? [Int] == tensor.shape)
            #expect(entry["data_offsets"] as? [Int] == [tensor.offsets.lowerBound, tensor.offsets.upperBound])
        }
    }

    @Test("not one JSON object: refused", arguments: [
        "", "[]", "\"x\"", "{", "{\"a\"}", "{\"a\": }", "{\"a\": 1,}", "{\"a\": 1} x", "{\"a\": \"\\x\"}",
        "{\"a\": \"\\ud83d\"}", "{\"a\": \"\\ud83d\\u0041\"}", "{\"a\": \"tab\there\"}", "{\"a\": 01.}", "{\"a\": -}",
        "{\"a\": tru}", "{\"a\": [1 2]}", "{1: 2}", "{\"a\": \"unterminated}",
    ])
    func refused(_ text: String) {
        #expect(parse(text) == nil)
    }

    @Test("nesting past the limit is refused, not recursed into")
    func deepNesting() {
        let deep = "{\"a\": " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
        #expect(parse(deep) == nil)
        let fine = "{\"a\": " + String(repeating: "[", count: 50) + String(repeating: "]", count: 50) + "}"
        #expect(parse(fine) != nil)
    }

    @Test("integers that do not fit an Int, or carry a fraction or exponent, are not shapes")
    func integers() throws {
        let entries = try #require(
            parse(#"{"a": {"shape": [9223372036854775808]}, "b": {"shape": [2e3]}, "c": {"shape": [-3, 0, 7]}}"#))
        #expect(entries["a"]?.shape == nil)
        #expect(entries["b"]?.shape == nil)
        #expect(entries["c"]?.shape == [-3, 0, 7])
    }
}
