import Foundation
import TroveKit
import TroveOutput
import TroveSystem

/// The client's half of the protocol without Codable. A one-shot `trove search` spent ~1 ms in its only
/// `JSONEncoder` and `JSONDecoder` calls: Codable's generic metadata and conformance lookups, paid once per process
/// (BENCHMARKS.md#serve-prints-for-the-client). So the client writes its request and reads a printed answer by hand;
/// the server keeps Codable, warm after its first request, and `WireTests` checks that the two write and read the same
/// JSON.
extension SearchServer.Envelope {
    /// The envelope as one JSON object, what `JSONEncoder` writes for it up to key order and the spelling of
    /// numbers; nil when a number is not finite, which JSON cannot carry (`JSONEncoder` throws there).
    package func json() -> String? {
        var object = JSONObjectWriter()
        object.add("protocol", `protocol`)
        object.add("embedding", json: admission.json())
        object.add("request", json: request.json())
        if let style { object.add("printing", json: style.json()) }
        return object.finished()
    }
}

extension SearchServer.Admission {
    func json() -> String? {
        var object = JSONObjectWriter()
        if let ollama { object.add("ollama", ollama) }
        if let builtinModels { object.add("builtinModels", builtinModels) }
        if let openAI { object.add("openAI", openAI) }
        return object.finished()
    }
}

extension OutputStyle {
    func json() -> String? {
        var object = JSONObjectWriter()
        object.add("format", format.rawValue)
        object.add("color", color)
        object.add("escapeControls", escapeControls)
        object.add("explain", explain)
        object.add("nullTerminated", nullTerminated)
        object.add("currentDirectory", currentDirectory)
        return object.finished()
    }
}

extension SearchRequest {
    func json() -> String? {
        var object = JSONObjectWriter()
        object.add("query", query)
        object.add("mode", mode.rawValue)
        object.add("limit", limit)
        if let minScore { object.add("minScore", minScore) }
        object.add("filter", json: filter.json())
        object.add("groupByDocument", groupByDocument)
        object.add("candidateDepth", candidateDepth)
        object.add("fusion", fusion.rawValue)
        object.add("fusionConstant", fusionConstant)
        object.add("keywordWeight", keywordWeight)
        object.add("normalization", normalization.rawValue)
        object.add("scaleDepth", scaleDepth)
        if let chosenBM25 {
            var bm25 = JSONObjectWriter()
            bm25.add("k1", chosenBM25.k1)
            bm25.add("b", chosenBM25.b)
            bm25.add("headingWeight", chosenBM25.headingWeight)
            object.add("chosenBM25", json: bm25.finished())
        }
        object.add("documentLevelFusion", documentLevelFusion)
        object.add("scan", scan.rawValue)
        return object.finished()
    }
}

extension SearchFilter {
    func json() -> String? {
        var object = JSONObjectWriter()
        object.add("pathGlobs", pathGlobs)
        object.add("extensions", extensions)
        if let modifiedSince { object.add("modifiedSince", Int(modifiedSince)) }
        if let modifiedBefore { object.add("modifiedBefore", Int(modifiedBefore)) }
        object.add("roots", roots)
        return object.finished()
    }
}

extension SearchServer.Response {
    /// A printed answer read by hand: a JSON object of strings, whole numbers, booleans and nulls only (`protocol`,
    /// `output`, `count`, `model`, `error`, `code`). Nil for anything else (an answer with `hits`, a member this
    /// client does not know, JSON that does not parse), which the client then gives to `JSONDecoder`.
    init?(printedAnswer line: some Collection<UInt8>) {
        guard let members = FlatJSON.object(line) else { return nil }
        self.init()
        self.protocol = nil
        for (key, value) in members {
            switch (key, value) {
            case (_, .null): continue
            case ("protocol", .integer(let number)): self.protocol = Int(number)
            case ("count", .integer(let number)): count = Int(number)
            case ("output", .string(let text)): output = text
            case ("model", .string(let text)): model = text
            case ("error", .string(let text)): error = text
            case ("code", .string(let text)): code = text
            default: return nil
            }
        }
    }
}
