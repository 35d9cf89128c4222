@preconcurrency import Glibc
import Foundation
import TroveArguments
import TroveIngest
import TroveKit
import TroveMiniLM

/// `trove-bench passages`: the passages `trove index` would store for a folder of documents, as JSON lines, so a
/// benchmark of another keyword engine (Benchmarks/bench-postgres.sh ranks PostgreSQL full text) ranks exactly the
/// passages Trove's SQLite keyword mode ranks, without embedding them.
enum PassagesExport {
    static let docs = Option("--docs", value: "DIR", .folder, help: "the folder of documents (required)")
    static let maxTokens = Option(
        "--max-tokens", value: "N", .integer(min: 16), help: "the chunk budget",
        default: "256, the built-in model's (its 512-token context / 2)")

    static let spec = CommandSpec(
        name: "passages", abstract: "the passages trove index would store, as JSON lines, without embedding",
        usage: "trove-bench passages --docs DIR [--max-tokens N]",
        discussion: """
            Crawls DIR as `trove index` does (same ignore rules and file kinds), chunks each file with the indexer's
            chunker for the built-in model (its context counted with its tokenizer: the model must be installed) and
            prints one JSON object per passage to stdout: {"path", "ordinal", "heading", "text"}, the
            heading joined with " › " as the index stores it. Files in crawl order, passages in document order.
            """,
        groups: [OptionGroup("Options", [docs, maxTokens])])

    /// One passage as printed.
    struct Passage: Encodable {
        var path: String
        var ordinal: Int
        var heading: String
        var text: String
    }

    static func main(_ arguments: Arguments) async throws -> Int32 {
        guard let docs = arguments.value(Self.docs) else { throw UsageError("--docs DIR is required") }
        // The built-in model's context, counted with its tokenizer, as trove index cuts passages for it.
        let builtin = BuiltinEmbedder(folder: ModelFolder.resolve(environment: ProcessInfo.processInfo.environment))
        let chunker = Chunker(
            configuration: ChunkerConfiguration(
                maxTokens: arguments.integer(Self.maxTokens) ?? Indexer.chunkBudget(contextLength: 512)),
            limit: try Indexer.tokenLimit(
                embedder: builtin, info: try await builtin.inspect(),
                prefix: EmbeddingPrefixes.forModel(builtin.model).document))
        let options = CrawlOptions()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var count = 0
        try Crawler(options: options).crawl(root: docs) { file in
            let loaded = try DocumentLoader.load(file, maxFileSize: options.maxFileSize)
            let kind = DocumentKind(path: file.relativePath) ?? .plainText
            for chunk in chunker.chunks(of: loaded.text, kind: kind) {
                let passage = Passage(
                    path: file.relativePath, ordinal: chunk.ordinal,
                    heading: chunk.headingPath.joined(separator: " › "), text: chunk.text)
                print(String(decoding: try encoder.encode(passage), as: UTF8.self))
                count += 1
            }
        } onSkip: { skipped in
            fputs("skipped: \(skipped)\n", stderr)
        }
        fputs("\(count) passages\n", stderr)
        return 0
    }
}
