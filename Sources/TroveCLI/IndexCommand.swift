import Foundation
import TroveKit
import TroveOutput

/// `trove index [FOLDER…]`: crawl, chunk, embed and store.
struct IndexCommand: Command {
    static let name = "index"
    static let abstract = "Index folders of documents for search (again: only what changed is re-embedded)."
    static let usage = "trove index [options] [FOLDER…]"
    static let discussion = """
        With no FOLDER, refreshes every folder the index already holds. A rerun re-embeds only chunks whose
        text changed; an edited, moved or copied file reuses the vectors of its unchanged passages.
        """
    static let optionGroups = [
        OptionGroup(
            "Options",
            IndexingOptions.selection + [batch, jobs] + IndexingOptions.retrying
                + [reembed] + IndexingOptions.extraction + [precision, json, quiet, verbose] + CommonOptions.options)
    ]
    static let epilogue = """
        Honours .gitignore and .troveignore files; skips .git, node_modules, .build and hidden folders.
        PDF, HTML, DOCX, ODT, PPTX, EPUB, notebooks and mail are read by an extraction worker process; a file
        it cannot read is one warning line and is counted, and an unchanged one is not tried again.
        Each batch is saved in one transaction: Ctrl-C finishes the batch, prints what was done and exits 130,
        and the next run resumes. If Ollama goes away, the run stops after saving the work finished so far.

        Examples:
          trove index ~/notes
          trove index --include '*.md' --exclude 'archive/**' ~/notes
          trove index --reembed
          trove index --provider openai --base-url http://127.0.0.1:8080/v1 --model all-minilm ~/notes
        """
    static let operands = Option.Value.folder

    static let batch = Option(
        "--batch", value: "N", .integer(min: 1), help: "chunks per embedding request",
        default: "\(IndexOptions.defaultBatchSize)")
    static let jobs = Option(
        "--jobs", value: "N", .integer(min: 1), help: "embedding requests in flight at once",
        default: "\(IndexOptions.defaultJobs)")
    static let reembed = Option(
        "--reembed",
        help: "rebuild every vector with the model as it is now (after ollama pull, or with another --model); "
            + "searches use the old vectors until the new set is complete")
    static let precision = Option(
        "--precision", value: "MODE",
        .choice((EmbedPrecision.allCases.map(\.rawValue) + ["auto"]).map { Option.Choice($0) }),
        help: "the built-in model's arithmetic: reduced precision is faster where the CPU has the instructions",
        default: "$TROVE_EMBED_PRECISION, else auto (the fastest that keeps the ranking)")
    static let json = Option("--json", help: "print the summary as JSON")
    static let quiet = Option("--quiet", short: "-q", help: "no progress, no warnings: only the summary")
    static let verbose = Option("--verbose", short: "-v", help: "one line per document written, refreshed or removed")

    var common: CommonOptions
    var indexing: IndexingOptions
    var batchSize = IndexOptions.defaultBatchSize
    var jobs = IndexOptions.defaultJobs
    var reembed: Bool
    /// `--precision`, when given.
    var precision: String?
    var json: Bool
    var quiet: Bool
    var verbose: Bool
    var folders: [String]

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        indexing = IndexingOptions(parsing: &arguments)
        if let batch = arguments.integer(Self.batch) { batchSize = batch }
        if let jobs = arguments.integer(Self.jobs) { self.jobs = jobs }
        reembed = arguments.flag(Self.reembed)
        precision = arguments.value(Self.precision)
        json = arguments.flag(Self.json)
        quiet = arguments.flag(Self.quiet)
        verbose = arguments.flag(Self.verbose)
        folders = arguments.operands
        if quiet && verbose { throw UsageError("--quiet and --verbose contradict each other: pick one") }
    }

    func run(_ console: Console) async throws -> Int32 {
        var settings = try Settings(common, console: console)
        settings.precisionFlag = precision
        let roots = folders.map { IndexLocation.expandingTilde($0, environment: console.environment) }
        let isNew = try !settings.location.exists()
        if isNew && roots.isEmpty {
            throw UsageError("no index at \(settings.location) yet — name a folder: trove index FOLDER")
        }
        let index = try await indexing.openForIndexing(settings, common: common, console: console, quiet: quiet)
        let model = try await index.currentEmbedder().model
        let progress = ProgressLine(stream: console.error, enabled: !quiet && console.error.isTerminal)
        let stop = Interrupts.listen()
        defer { Interrupts.stopListening() }
        var options = indexing.index
        options.roots = roots
        options.batchSize = batchSize
        options.jobs = jobs
        options.reembed = reembed
        options.stop = stop
        var finished: IndexSummary?
        for try await progressed in try await index.index(options) {
            guard case .event(let event) = progressed else {
                if case .finished(let summary) = progressed { finished = summary }
                continue
            }
            switch event {
            case .crawled(let root, let files):
                progress.clear()
                if !quiet { console.log("indexing \(root): \(files) files") }
            case .skipped(let message), .warning(let message):
                progress.clear()
                if !quiet { console.log("warning: \(message)") }
            case .notice(let message):
                progress.clear()
                if !quiet { console.log(message) }
            case .decoded(let path, let encoding):
                guard verbose else { continue }
                progress.clear()
                console.log("\(path): read as \(encoding)")
            case .progress(let done, let total, let chunks):
                progress.update(filesDone: done, filesTotal: total, chunksEmbedded: chunks)
            case .document(let path, let change, let chunks, let reused):
                guard verbose else { continue }
                progress.clear()
                let padded = change.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                let detail = change == .new || change == .changed ? " (\(chunks) chunks, \(reused) reused)" : ""
                console.log("\(padded) \(path)\(detail)")
            }
        }
        guard let summary = finished else { throw CancellationError() }
        progress.clear()
        if json {
            console.print(try JSONOutput.encode(summary))
        } else {
            console.print(Self.describe(summary, model: model))
        }
        if summary.interrupted {
            console.log("interrupted: what is counted above is saved — run trove index again to finish")
            return ExitCode.interrupted
        }
        return ExitCode.success
    }

    static func describe(_ summary: IndexSummary, model: String) -> String {
        // Each skipped file once: the plain reasons, then the extraction failures grouped by format
        // (`3 skipped (1 binary; 2 PDFs: 1 encrypted, 1 no text layer)`).
        let listed = { (reasons: [String: Int]) in
            reasons.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        }
        var groups = summary.skippedOtherwise.isEmpty ? [] : [listed(summary.skippedOtherwise)]
        for (format, words) in summary.extractionFailuresWorded.sorted(by: { $0.key < $1.key }) {
            let count = words.values.reduce(0, +)
            groups.append("\(count) \(format.uppercased())\(count == 1 ? "" : "s"): \(listed(words))")
        }
        let skipped = "\(summary.skippedFiles) skipped" + (groups.isEmpty ? "" : " (\(groups.joined(separator: "; ")))")
        var text =
            "\(summary.newDocuments) new, \(summary.changedDocuments) changed, \(summary.unchangedDocuments) unchanged, "
            + "\(summary.removedDocuments) removed, \(skipped); "
            + "\(summary.chunksEmbedded) chunks embedded, \(summary.chunksReused) reused, with \(model) in "
            + String(format: "%.1f", summary.seconds) + " s"
        if summary.failuresRemembered > 0 {
            text += " (\(summary.failuresRemembered) remembered from earlier runs — --retry-failed tries again)"
        }
        if summary.rechunkedDocuments > 0 {
            text += "; \(summary.rechunkedDocuments) chunked again for the new chunker (no file read)"
        }
        if summary.chunksReembedded > 0 { text += "; \(summary.chunksReembedded) vectors rebuilt" }
        if summary.retries > 0 { text += "; \(summary.retries) \(summary.retries == 1 ? "request" : "requests") retried" }
        return text
    }
}
