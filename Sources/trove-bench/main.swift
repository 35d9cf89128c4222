@preconcurrency import Glibc

/// One `trove-bench <name>` subcommand; add a line to `subcommands` (and a file) for a new one.
struct Subcommand {
    let name: String
    let summary: String
    let run: ([String]) async -> Int32
}

let subcommands = [
    Subcommand(
        name: "search", summary: "vector search latency and throughput on synthetic data", run: SearchBenchmark.main),
    Subcommand(
        name: "index", summary: "indexing throughput of Corpora/ copies against the zero-latency fake Ollama",
        run: IndexBenchmark.main),
    Subcommand(
        name: "relevance", summary: "nDCG@10 and recall of vector, keyword and hybrid ranking on a labelled set",
        run: RelevanceBenchmark.main),
    Subcommand(
        name: "cold", summary: "fresh-process trove search latency on a synthetic index, with and without the cache",
        run: ColdBenchmark.main),
    Subcommand(
        name: "embed", summary: "built-in MiniLM: chunks/s, query latency, share of the sgemm ceiling",
        run: EmbedBenchmark.main),
]

/// The usage text listing every subcommand.
@MainActor func usage() -> String {
    var text = "usage: trove-bench <subcommand> [options]\n\nsubcommands:\n"
    for command in subcommands {
        text += "  \(command.name + String(repeating: " ", count: max(1, 10 - command.name.count)))\(command.summary)\n"
    }
    return text + "\nrun `trove-bench <subcommand> --help` for its options.\n"
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let first = arguments.first, first == "--help" || first == "-h" {
    print(usage(), terminator: "")
    exit(0)
}
guard let name = arguments.first, let command = subcommands.first(where: { $0.name == name }) else {
    let what = arguments.first.map { "Error: unknown subcommand '\($0)'\n" } ?? "Error: missing subcommand\n"
    fputs(what + usage(), stderr)
    exit(64)
}
exit(await command.run(Array(arguments.dropFirst())))
