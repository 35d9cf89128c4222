import Foundation
import Testing

import TroveKit
import TroveOutput

@testable import TroveServe

/// The client's hand-written half of `trove serve`'s protocol (Wire.swift) against Codable's, which the
/// server uses: what the client writes decodes to the same envelope, and what the server writes reads the same.
@Suite("trove serve's wire without Codable")
struct WireTests {
    /// Every field set, none to its default, strings with what JSON must escape.
    static let full: SearchServer.Envelope = {
        var request = SearchRequest(
            query: "quote \" backslash \\ tab \t newline \n nul \u{0} bell \u{7} é 漢字 🙂 \u{2028}", mode: .keyword,
            limit: 7, minScore: 0.2, groupByDocument: false, candidateDepth: 33, fusionConstant: 12.5,
            keywordWeight: 1e308)
        request.filter = SearchFilter()
        request.filter.pathGlobs = ["notes/*.md", "**/2024-*"]
        request.filter.extensions = ["md", "txt"]
        request.filter.modifiedSince = -5
        request.filter.modifiedBefore = 9_000_000_000_000_000_000
        request.filter.roots = ["/home/u/notes"]
        request.fusion = .rrf
        request.normalization = .minMax
        request.scaleDepth = 3
        request.chosenBM25 = SearchRequest.BM25(k1: 0.9, b: 0.3, headingWeight: 2)
        request.documentLevelFusion = !SearchRequest.defaultDocumentLevelFusion
        request.scan = .int8
        return SearchServer.Envelope(
            protocol: SearchServer.protocolVersion,
            admission: SearchServer.Admission(ollama: "http://127.0.0.1:11434", builtinModels: "/m", openAI: ""),
            request: request,
            style: OutputStyle(
                format: .jsonl, color: true, escapeControls: true, explain: true, nullTerminated: true,
                currentDirectory: "/home/ü/\"x\""))
    }()

    @Test("the full sample sets every optional field, so a new field the writer misses cannot go unseen")
    func sampleIsFull() {
        func nils(_ value: Any, _ path: String) -> [String] {
            Mirror(reflecting: value).children.flatMap { child -> [String] in
                let name = path + "." + (child.label ?? "?")
                let inner = Mirror(reflecting: child.value)
                if inner.displayStyle == .optional {
                    guard let wrapped = inner.children.first?.value else { return [name] }
                    return nils(wrapped, name)
                }
                return inner.displayStyle == .struct ? nils(child.value, name) : []
            }
        }
        #expect(nils(Self.full, "envelope") == [])
    }

    @Test("what the client writes decodes, with Codable, to the same envelope, with the same members", arguments: [
        full,
        SearchServer.Envelope(
            protocol: SearchServer.protocolVersion,
            admission: SearchServer.Admission(ollama: nil, builtinModels: nil, openAI: nil),
            request: SearchRequest(query: "q")),
    ])
    func requestRoundTrip(envelope: SearchServer.Envelope) throws {
        let written = try #require(envelope.json())
        #expect(!written.contains("\n"), "one line")
        let decoded = try JSONDecoder().decode(SearchServer.Envelope.self, from: Data(written.utf8))
        #expect(decoded == envelope)
        #expect(SearchServer.decode(Data(written.utf8), admission: envelope.admission).isSuccess == true)
        // The same members, nested ones included, as JSONEncoder's: none missing, none extra.
        func keys(_ json: Data) throws -> Set<String> {
            func walk(_ value: Any, _ path: String) -> [String] {
                guard let object = value as? [String: Any] else { return [] }
                return object.flatMap { [path + "." + $0.key] + walk($0.value, path + "." + $0.key) }
            }
            return Set(walk(try JSONSerialization.jsonObject(with: json), ""))
        }
        #expect(try keys(Data(written.utf8)) == keys(JSONEncoder().encode(envelope)))
    }

    @Test("a number JSON cannot carry makes no request (the client then searches on its own)")
    func nonFinite() {
        var envelope = Self.full
        envelope.request.keywordWeight = .infinity
        #expect(envelope.json() == nil)
        envelope = Self.full
        envelope.request.minScore = .nan
        #expect(envelope.json() == nil)
    }

    @Test("a printed answer reads the same by hand as with Codable, whatever its text holds")
    func answerRoundTrip() throws {
        let texts = ["", "plain", Self.full.request.query, "\u{1B}[1;35mpath\u{1B}[0m:1-2  0.50\n", "\u{10FFFF}\u{FFFD}"]
        for text in texts {
            for response in [
                SearchServer.Response(output: text, count: 3, model: "all-minilm-l6-v2"),
                SearchServer.Response(error: text, code: "bad-request"),
            ] {
                let line = try JSONEncoder().encode(response)
                let read = try #require(SearchServer.Response(printedAnswer: line))
                #expect(read.protocol == response.protocol)
                #expect(read.output == response.output && read.count == response.count && read.model == response.model)
                #expect(read.error == response.error && read.code == response.code)
            }
        }
        // Escapes JSONEncoder never writes but JSON allows, and a surrogate pair.
        let escaped = #"{"protocol": 4, "output": "a\/b\u00e9\ud83d\ude42\b\f", "count": 0, "model": null}"#
        let read = try #require(SearchServer.Response(printedAnswer: Array(escaped.utf8)))
        #expect(read.output == "a/bé🙂\u{8}\u{C}" && read.count == 0 && read.model == nil && read.protocol == 4)
    }

    @Test("anything but a flat object of known members is left to Codable", arguments: [
        #"{"protocol": 4, "hits": []}"#, #"{"protocol": 4, "count": 1.5}"#, #"{"protocol": 4, "count": 1e3}"#,
        #"{"protocol": 4, "count": 01}"#, #"{"protocol": 4, "count": 99999999999999999999}"#,
        #"{"protocol": 4, "output": "\ud83d"}"#, #"{"protocol": 4, "output": "\x"}"#, #"{"protocol": 4, "output": "a"#,
        #"{"protocol": 4} x"#, #"{"protocol": 4,}"#, #"{"protocol": 4, "protocol": 5}"#, "{\"output\": \"a\u{1}\"}",
        #"{"output": "\u+041"}"#, #"{"protocol": "4"}"#, #"{"unknown": 1}"#, "[]", "", "{",
    ])
    func refused(line: String) {
        #expect(SearchServer.Response(printedAnswer: Array(line.utf8)) == nil)
    }

    @Test("invalid UTF-8 inside a string is refused, not repaired")
    func invalidUTF8() {
        let line = Array(#"{"output": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(SearchServer.Response(printedAnswer: line) == nil)
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
