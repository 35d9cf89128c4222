import TroveKit

/// The options of the commands that index (`trove index`, `trove watch`, and `serve --watch`/`mcp --watch`, which take
/// the crawl and retry options alone: they keep the index's embedder), declared and read once, as
/// swift-argument-parser's `@OptionGroup` shares them.
struct IndexingOptions {
    static let provider = Option(
        "--provider", value: "KIND",
        .choice(Provider.allCases.map { Option.Choice($0.rawValue, $0.embeddingHelp) }), help: "what embeds the passages",
        default: "the index's, else $TROVE_PROVIDER, else the config file's provider, else ollama")
    static let embedder = Option(
        "--embedder", value: "KIND", provider.value, help: "the same as --provider")
    static let model = Option(
        "--model", value: "NAME", help: "embedding model", default: "$TROVE_EMBED_MODEL, else nomic-embed-text")
    static let include = Option(
        "--include", value: "GLOB", help: "index only files matching GLOB, e.g. '*.md' or 'docs/**'", repeatable: true)
    static let exclude = Option(
        "--exclude", value: "GLOB", help: "skip files and folders matching GLOB", repeatable: true)
    static let maxFileSize = Option(
        "--max-file-size", value: "N", .size, help: "skip files larger than N bytes; suffix k, M or G for KiB, MiB, GiB", default: "10M")
    static let retries = Option(
        "--retries", value: "N", .integer(min: 0),
        help: "retries of a failed request: connection, timeout, busy, 5xx", default: "3")
    /// For tests of the retry path: the default half-second backoff would make them slow.
    static let retryBaseMs = Option(
        "--retry-base-ms", value: "MS", .integer(min: 0), help: "first retry delay", hidden: true)

    static let reextract = Option(
        "--reextract",
        help: "read PDF, HTML, DOCX, … files again even when unchanged (after an extractor improved)")
    static let ocr = Option(
        "--ocr", value: "PAGES", .integer(min: 0),
        help: "read scanned PDFs of at most PAGES pages with OCR (tesseract; seconds a page), and try again the "
            + "scans skipped before; 0 never", default: "0")
    static let retryFailed = Option(
        "--retry-failed", help: "try again the files whose extraction failed before (skipped otherwise until they change)")

    /// What embeds and what is indexed: first in help.
    static let selection = [provider, embedder, model, include, exclude, maxFileSize]
    /// How a failed request is retried: after the command's own options in help.
    static let retrying = [retries, retryBaseMs]
    /// What a watch beside a server takes (`serve --watch`, `mcp --watch`): what is indexed and how a failed request
    /// is retried.
    static let watching = [include, exclude, maxFileSize] + retrying + extraction
    /// How documents of extracted formats are read (a watch applies `--reextract` and `--retry-failed` to its
    /// catch-up pass, `--ocr` to every pass).
    static let extraction = [reextract, retryFailed, ocr]

    /// `--provider` (or `--embedder`); nil keeps the index's.
    var provider: Provider?
    /// `--model`; nil keeps the index's.
    var model: String?
    /// The crawl rules and retries; the command adds its roots and the rest.
    var index = IndexOptions(roots: [])
    /// `--retry-base-ms`, when given.
    var retryBaseDelay: Duration?

    /// Reads the options from `arguments` (all of them: `selection` and `retrying` were declared).
    init(parsing arguments: inout Arguments) {
        self.init(parsingWatching: &arguments)
        provider =
            arguments.choice(Self.provider, as: Provider.self) ?? arguments.choice(Self.embedder, as: Provider.self)
        model = arguments.value(Self.model)
    }

    /// Reads the options of `watching` for a server (`serve`, `mcp`): they shape its watch, so they need `--watch`.
    init(watching arguments: inout Arguments, watch: Bool) throws {
        if !watch, let given = Self.watching.first(where: { !arguments.values($0).isEmpty }) {
            throw UsageError("\(given.long) applies to the watch: give --watch too")
        }
        self.init(parsingWatching: &arguments)
    }

    /// Reads the options of `watching` from `arguments`.
    private init(parsingWatching arguments: inout Arguments) {
        index.crawl.includes = arguments.values(Self.include)
        index.crawl.excludes = arguments.values(Self.exclude)
        if let size = arguments.byteSize(Self.maxFileSize) { index.crawl.maxFileSize = size }
        if let retries = arguments.integer(Self.retries) { index.retry.retries = retries }
        retryBaseDelay = arguments.integer(Self.retryBaseMs).map { .milliseconds($0) }
        if let retryBaseDelay { index.retry.baseDelay = retryBaseDelay }
        index.reextract = arguments.flag(Self.reextract)
        index.retryFailed = arguments.flag(Self.retryFailed)
        if let pages = arguments.integer(Self.ocr) { index.ocrPages = pages }
    }

    /// What a watch does with these options: their crawl rules and retries, the first backoff `--retry-base-ms`.
    var watch: WatchOptions {
        var options = WatchOptions(index: index)
        if let retryBaseDelay { options.firstBackoff = retryBaseDelay }
        return options
    }

    /// The index these settings name, created when missing, with the embedder the options name (an existing index
    /// keeps its own).
    func createIndex(_ settings: Settings) throws -> TroveIndex {
        try settings.createIndex(provider: provider, modelFlag: model)
    }
}
