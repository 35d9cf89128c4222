import Foundation
import TroveSearch

// Fuzz target: `trove serve`'s request decoder (`SearchServer.decode`), which checks the JSON line, the protocol
// version, the embedding settings and then every field's range. Oracles for a request it accepts: encoded again,
// by JSONEncoder and by the client's own writer (`Envelope.json()`), and decoded, it is accepted as the same
// request; and it can be ranked — both fusions run with its parameters
// (constant, weights, normalisation, scale depth) over rankings as deep as it asks, and every fused score is
// finite, since a reply with a NaN or an infinity cannot be encoded as JSON.
let embedding = SearchServer.Admission(ollama: nil, builtinModels: "/models", openAI: nil)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let line = Data(bytes: data, count: size)
    guard case .success(let envelope) = SearchServer.decode(line, admission: embedding) else { return 0 }
    guard let again = try? JSONEncoder().encode(envelope) else { preconditionFailure("an accepted request cannot be encoded") }
    guard case .success(let decoded) = SearchServer.decode(again, admission: embedding) else {
        preconditionFailure("an accepted request, encoded again, is refused")
    }
    precondition(decoded == envelope, "an accepted request changes on the wire")
    // The client writes its request by hand (Sources/TroveServe/Wire.swift): the server must read that as the same too.
    guard let written = envelope.json(), case .success(let read) = SearchServer.decode(Data(written.utf8), admission: embedding)
    else { preconditionFailure("an accepted request, written as the client writes it, is refused") }
    precondition(read == envelope, "an accepted request, written as the client writes it, changes on the wire")
    let request = envelope.request

    // Rankings shaped like the search's: cosines in -1…1 best first, BM25 scores spread out, partly the same ids.
    let depth = min(max(request.candidateDepth, request.limit), 50)
    let vector = (0..<depth).map { ScoredRow(id: Int64($0), score: 1 - 2 * Float($0) / Float(max(depth, 1))) }
    let keyword = (0..<depth).map { ScoredRow(id: Int64(2 * $0), score: Float(depth - $0) * 3.25 + 0.5) }
    let weights = [1, request.keywordWeight]
    let fused =
        switch request.fusion {
        case .rrf:
            RankFusion(constant: request.fusionConstant, weights: weights).fuse([vector.map(\.id), keyword.map(\.id)])
        case .convex:
            ScoreFusion(normalization: request.normalization, weights: weights, statisticsDepth: request.scaleDepth)
                .fuse([vector, keyword])
        }
    for row in fused {
        precondition(row.score.isFinite, "fused score \(row.score) for an accepted request: \(request)")
    }
    return 0
}
