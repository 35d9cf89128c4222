import Testing
import TroveStore

@testable import TroveKit

@Suite("Judging truncation from the server's token counts")
struct TruncationCheckTests {
    /// A prompt of 100 words: at least 100 tokens on any tokenizer.
    let prompt = [
        PromptMessage(role: .system, content: String(repeating: "rule ", count: 40)),
        PromptMessage(role: .user, content: String(repeating: "source ", count: 60)),
    ]

    @Test(
        "complete, cut or unknown, never a cut that caching explains",
        arguments: [
            // (prompt_tokens, cached_tokens, window, expected): a count at least the prompt is complete.
            (130, nil, 4096, "complete"),
            // The cached tokens count toward the prompt on servers that leave them out of prompt_tokens.
            (40, 70, 4096, "complete"),
            // With the cache accounted for and still short, the server dropped part of it.
            (40, 20, 4096, "cut"),
            // Short, nothing said about a cache: a cached prefix (ollama#2068, #3427) explains it.
            (40, nil, 4096, "unknown"),
            // A full window: the packer leaves room for the answer, so the server cut the prompt to fit.
            (64, nil, 64, "cut"),
            (2048, nil, 2048, "cut"),
        ] as [(Int, Int?, Int, String)])
    func judge(prompt tokens: Int, cached: Int?, window: Int, expected: String) {
        let check = TruncationCheck.judge(
            ChatModelEnd(finishReason: "stop", promptTokens: tokens, cachedTokens: cached), messages: prompt,
            contextWindow: window)
        switch check {
        case .complete: #expect(expected == "complete")
        case .cut: #expect(expected == "cut")
        case .unknown(let reason):
            #expect(expected == "unknown")
            #expect(reason.contains("cached"), "\(reason)")
        }
    }

    @Test("a server that reports no prompt count leaves truncation unknown, and says so")
    func notReported() {
        #expect(
            TruncationCheck.judge(ChatModelEnd(finishReason: "stop"), messages: prompt, contextWindow: 4096)
                == .unknown(reason: "the server reported no prompt token count"))
        #expect(
            TruncationCheck.judge(nil, messages: prompt, contextWindow: 4096)
                == .unknown(reason: "the server reported no prompt token count"))
    }
}

@Suite("An answer's sources")
struct AnswerSourcesTests {
    func answer(_ text: String) -> Answer {
        let sources = (1...3).map { number in
            NumberedSource(
                number: number,
                hit: SearchHit(
                    rank: number, chunkID: Int64(number), rootPath: "/n", relativePath: "\(number).md", startLine: 1,
                    endLine: 2, heading: "", score: 0.5, text: "t"))
        }
        return Answer(
            text: text, sources: sources, citations: Citations(answer: text, sourceCount: 3), model: "m",
            provider: .openai, truncation: .complete, interrupted: false)
    }

    @Test("with nothing cited, every passage the model was given is listed as not cited")
    func noneCited() {
        #expect(answer("No citations at all.").uncitedSources.map(\.number) == [1, 2, 3])
        #expect(answer("See [2].").uncitedSources.map(\.number) == [1, 3])
        #expect(answer("See [2].").citedSources.map(\.number) == [2])
    }
}
