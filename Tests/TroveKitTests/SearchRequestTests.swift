import Testing
import TroveKit

@Suite("Search request validation")
struct SearchRequestTests {
    @Test("the defaults are valid")
    func defaultsAreValid() throws {
        try SearchRequest(query: "x").validate()
    }

    @Test(
        "a parameter out of range is an error naming it, never a precondition",
        arguments: [
            ("constant", -1, "fusion constant must be 0 or more, got -1.0"),
            ("weight", .nan, "keyword weight must be 0 or more, got nan"),
            ("depth", 0, "candidate depth must be 1 or more, got 0"),
            ("scale", 0, "scale depth must be 1 or more, got 0"),
            ("limit", -3, "limit must be 0 or more, got -3"),
            ("k1", .infinity, "BM25 k1 must be 0 or more, got inf"),
            ("b", 1.5, "BM25 b must be 0…1, got 1.5"),
            ("heading", -2, "heading weight must be 0 or more, got -2.0"),
            ("minScore", 2, "minimum score is a cosine similarity, -1…1, got 2.0"),
        ] as [(String, Double, String)])
    func outOfRange(parameter: String, value: Double, message: String) {
        var request = SearchRequest(query: "x")
        switch parameter {
        case "constant": request.fusionConstant = value
        case "weight": request.keywordWeight = value
        case "depth": request.candidateDepth = Int(value)
        case "scale": request.scaleDepth = Int(value)
        case "limit": request.limit = Int(value)
        case "k1": request.bm25.k1 = value
        case "b": request.bm25.b = value
        case "heading": request.bm25.headingWeight = value
        default: request.minScore = Float(value)
        }
        #expect(throws: SearchRequestError(message)) { try request.validate() }
    }
}
