import Foundation
import Testing

@testable import Ollama

/// Numbers in `/api/show` come from a server we do not control: nonsense means "unknown", never a trap.
@Suite("Untrusted numbers from /api/show")
struct UntrustedNumberTests {
    private func details(contextLength: String) throws -> OllamaClient.ModelDetails {
        let json = #"{"model_info": {"general.architecture": "bert", "bert.context_length": \#(contextLength), "#
            + #""bert.embedding_length": 384}}"#
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return OllamaClient.ModelDetails(showReply: reply)
    }

    @Test(
        "a context_length of 1e20, -1, 0, 1.5 or \"x\" reads as unknown",
        arguments: ["1e20", "-1", "0", "1.5", #""x""#, "18446744073709551615", "null", "[]"])
    func nonsense(value: String) throws {
        let details = try details(contextLength: value)
        #expect(details.contextLength == nil)
        #expect(details.embeddingLength == 384)
    }

    @Test("a sane context_length, as a number or a string, is read", arguments: ["2048", "2048.0", #""2048""#])
    func sane(value: String) throws {
        #expect(try details(contextLength: value).contextLength == 2048)
    }
}
