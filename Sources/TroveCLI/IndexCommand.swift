import Foundation
import TroveIngest
import TroveKit
import TroveStore

/// `trove index [FOLDER…]`: crawl, chunk, embed and store.
struct IndexCommand: Command {
    static let name = "index"
    static let abstract = "Index folders of documents for search (again: only what changed is re-embedded)."
    static let usage = "trove index [options] [FOLDER…]"
    static let details = """
        With no FOLDER, refreshes every folder the index already holds.

        Options:
          --embedder KIND     ollama or builtin (all-minilm-l6-v2 in-process, no server; default: the index's,
                              else $TROVE_EMBEDDER, else ollama)
          --model NAME        embedding model (default: $TROVE_EMBED_MODEL, else nomic-embed-text)
          --include GLOB      index only files matching GLOB (repeatable), e.g. '*.md' or 'docs/**'
          --exclude GLOB      skip files and folders matching GLOB (repeatable)
          --max-file-size N   skip files larger than N bytes (suffix k, M, G; default 10M)
          --batch N           chunks per embedding request (default 64)
          --json              print the summary as JSON
          -q, --quiet         no progress, no warnings
        \(CommonOptions.help)

        Honours .gitignore and .troveignore files; skips .git, node_modules, .build and hidden folders.

        Examples:
          trove index ~/notes
          trove index --include '*.md' --exclude 'archive/**' ~/notes
        """

    var common: CommonOptions
    var model: String?
    var embedderKind: String?
    var crawl = CrawlOptions()
    var batchSize = 64
    var json: Bool
    var quiet: Bool
    var folders: [String]

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        model = try arguments.value("--model")
        embedderKind = try arguments.value("--embedder")
        crawl.includes = try arguments.values("--include")
        crawl.excludes = try arguments.values("--exclude")
        if let size = try arguments.byteSize("--max-file-size") { crawl.maxFileSize = size }
        if let batch = try arguments.integer("--batch", minimum: 1) { batchSize = batch }
        json = arguments.flag("--json")
        quiet = arguments.flag("-q", "--quiet")
        folders = try arguments.positionals()
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, environment: console.environment)
        let roots = folders.map { IndexLocation.expandingTilde($0, environment: console.environment) }
        let isNew = !FileManager.default.fileExists(atPath: settings.indexPath)
        if isNew && roots.isEmpty {
            throw UsageError("no index at \(settings.indexPath) yet — name a folder: trove index FOLDER")
        }
        let store = try IndexStore(path: settings.indexPath, createIfMissing: true)
        // Without --embedder/--model, an existing index keeps the embedder and model it was built with.
        let embedder = try settings.embedder(kindFlag: embedderKind, modelFlag: model, indexed: store.manifest())
        let model = embedder.model
        let progress = ProgressLine(stream: console.error, enabled: !quiet && console.error.isTerminal)
        let summary = try await Indexer(store: store, embedder: embedder).run(
            IndexOptions(roots: roots, crawl: crawl, batchSize: batchSize)
        ) { event in
            switch event {
            case .crawled(let root, let files):
                progress.clear()
                if !quiet { console.log("indexing \(root): \(files) files") }
            case .skipped(let message):
                progress.clear()
                if !quiet { console.log("warning: \(message)") }
            case .warning(let message):
                progress.clear()
                if !quiet { console.log("warning: \(message)") }
            case .progress(let done, let total, let chunks):
                progress.update("\(done)/\(total) files · \(chunks) chunks embedded")
            }
        }
        progress.clear()
        if json {
            console.print(try JSONOutput.encode(summary))
        } else {
            console.print(Self.describe(summary, model: model))
        }
        return ExitCode.success
    }

    static func describe(_ summary: IndexSummary, model: String) -> String {
        "\(summary.newDocuments) new, \(summary.changedDocuments) changed, \(summary.unchangedDocuments) unchanged, "
            + "\(summary.removedDocuments) removed, \(summary.skippedFiles) skipped; "
            + "\(summary.chunksEmbedded) chunks embedded with \(model) in "
            + String(format: "%.1f", summary.seconds) + " s"
    }
}
