@preconcurrency import Glibc
import Foundation
import TroveArguments
import TroveKit
import TroveMiniLM
import TroveStore

/// `trove-bench tokens`: how many of an index's passages exceed the built-in model's context, counted with its own
/// WordPiece tokenizer over the text it embeds (the document prefix, the heading line, the text): the share the
/// model would cut short.
enum TokenCountBenchmark {
    static let index = Option("--index", value: "PATH", .file, help: "the SQLite index to read (required)")

    static let spec = CommandSpec(
        name: "tokens", abstract: "the share of an index's passages over the built-in model's 512-token context",
        usage: "trove-bench tokens --index PATH",
        discussion: """
            Reads every passage of the index and counts the tokens all-MiniLM-L6-v2 would read for it ([CLS], the
            model's document prefix, the heading path joined by " › ", a blank line, the text, [SEP]) with the
            built-in model's tokenizer. Prints one Markdown row: passages, how many are over 512 tokens and their
            share, the largest count and the 99th percentile. The index is opened read-only in effect (nothing is
            written) but must be of this trove's schema.
            """,
        groups: [OptionGroup("Options", [index])])

    static func main(_ arguments: Arguments) async throws -> Int32 {
        guard let path = arguments.value(Self.index) else { throw UsageError("--index PATH is required") }
        let tokenizer = try BuiltinEmbedder(folder: ModelFolder.resolve(environment: ProcessInfo.processInfo.environment))
            .encoder().tokenizer
        let store = try SQLiteStore(path: path, createIfMissing: false)
        let prefix = try store.manifest()?.documentPrefix ?? ""
        let ids = try store.chunkIDs(inDocuments: try store.searchableDocuments().map(\.id))
        var counts: [Int] = []
        for start in stride(from: 0, to: ids.count, by: 1000) {
            for chunk in try store.chunks(ids: Array(ids[start..<min(start + 1000, ids.count)])).values {
                let text = prefix + (chunk.heading.isEmpty ? chunk.text : chunk.heading + "\n\n" + chunk.text)
                counts.append(tokenizer.encode(text, maxLength: .max).count)
            }
        }
        counts.sort()
        let over = counts.count { $0 > MiniLM.contextLength }
        let share = counts.isEmpty ? 0 : Double(over) / Double(counts.count) * 100
        let p99 = counts.isEmpty ? 0 : counts[min(counts.count - 1, counts.count * 99 / 100)]
        print(
            "| \(path) | \(counts.count) | \(over) | " + String(format: "%.2f %%", share)
                + " | \(counts.last ?? 0) | \(p99) |")
        return 0
    }
}
