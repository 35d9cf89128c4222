@preconcurrency import Glibc
import TroveArguments

/// One `trove-bench <name>` subcommand; add a line to `subcommands` (and a file) for a new one. Its options are
/// declared in `spec` and parsed by the same code as trove's, so a mistyped flag is an error, never a default.
struct Subcommand {
    let spec: CommandSpec
    let run: (Arguments) async throws -> Int32
}

let subcommands = [
    Subcommand(spec: SearchBenchmark.spec, run: SearchBenchmark.main),
    Subcommand(spec: IndexBenchmark.spec, run: IndexBenchmark.main),
    Subcommand(spec: StatusBenchmark.spec, run: StatusBenchmark.main),
    Subcommand(spec: FilterBenchmark.spec, run: FilterBenchmark.main),
    Subcommand(spec: RelevanceBenchmark.spec, run: RelevanceBenchmark.main),
    Subcommand(spec: ColdBenchmark.spec, run: ColdBenchmark.main),
    Subcommand(spec: EmbedBenchmark.spec, run: EmbedBenchmark.main),
    Subcommand(spec: WarmBenchmark.spec, run: WarmBenchmark.main),
    Subcommand(spec: PassagesExport.spec, run: PassagesExport.main),
    Subcommand(spec: FakeOllamaCommand.spec, run: FakeOllamaCommand.main),
    Subcommand(spec: ExtractBenchmark.spec, run: ExtractBenchmark.main),
    Subcommand(spec: TokenCountBenchmark.spec, run: TokenCountBenchmark.main),
]

/// The usage text listing every subcommand.
@MainActor func usage() -> String {
    var text = "usage: trove-bench <subcommand> [options]\n\nsubcommands:\n"
    for command in subcommands {
        let name = command.spec.name
        text += "  \(name + String(repeating: " ", count: max(1, 10 - name.count)))\(command.spec.abstract)\n"
    }
    return text + "\nrun `trove-bench <subcommand> --help` for its options.\n"
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let first = arguments.first, first == "--help" || first == "-h" {
    print(usage(), terminator: "")
    exit(0)
}
guard let name = arguments.first, let command = subcommands.first(where: { $0.spec.name == name }) else {
    let program = ProgramSpec(name: "trove-bench", summary: "", commands: subcommands.map(\.spec))
    let what = arguments.first.map { "Error: \(program.unknownCommand($0).message)\n" } ?? "Error: missing subcommand\n"
    fputs(what + usage(), stderr)
    exit(64)
}
let words = Array(arguments.dropFirst())
if words.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
    print(command.spec.helpText)
    exit(0)
}
do {
    exit(try await command.run(try Arguments(words, options: command.spec.options)))
} catch let error as UsageError {
    fputs("Error: \(error.message)\nUsage: \(command.spec.usage)   (see: trove-bench \(name) --help)\n", stderr)
    exit(64)
} catch {
    fputs("Error: \(error)\n", stderr)
    exit(1)
}
