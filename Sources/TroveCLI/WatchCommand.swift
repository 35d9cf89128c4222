import Foundation
import TroveKit
import TroveOutput

/// `trove watch [FOLDER…]`: keeps the index current as files change.
struct WatchCommand: Command {
    static let name = "watch"
    static let abstract = "Keep the index current: re-index what changes, within a second of each edit."
    static let usage = "trove watch [options] [FOLDER…]"
    static let discussion = """
        Watches every folder the index holds (or the FOLDERs named, which are indexed first if new) with
        inotify, under the same ignore rules as trove index, and runs one incremental pass per burst of
        changes: 300 ms after the last event, or 2 s after the first. Each pass is the pass trove index runs,
        limited to what changed (unchanged passages keep their vectors); it starts with one over everything,
        which catches up with what changed while nothing watched. Editor scratch files (.swp, ~ backups, 4913,
        .#locks, .tmp renamed into place) never start a pass; an edited .gitignore or .troveignore re-evaluates
        the folders it governs. One summary line per pass goes to stderr.
        """
    static let optionGroups = [
        OptionGroup(
            "Options",
            IndexingOptions.selection + [poll] + IndexingOptions.retrying + IndexingOptions.extraction
                + [json, quiet, verbose]
                + CommonOptions.options)
    ]
    static let epilogue = """
        An inotify queue overflow rescans everything once; when fs.inotify.max_user_watches runs out, the
        folders left over are scanned every 30 s and the message names the sysctl that raises the limit.
        While Ollama is down the changes wait and are retried with backoff (said once). One process writes an
        index at a time: a trove index started during a pass is refused, naming this process; between passes
        it runs. Ctrl-C or SIGTERM finishes the batch being written, then exits 130.

        Examples:
          trove watch                       # the index's folders
          trove watch ~/notes
          trove serve --watch               # the same, inside the search server
        """
    static let operands = Option.Value.folder

    static let poll = Option(
        "--poll", value: "SECONDS", .integer(min: 1),
        help: "also rescan everything every SECONDS (network mounts, where inotify sees nothing)")
    static let json = Option("--json", help: "one JSON line per pass on stdout")
    static let quiet = Option("--quiet", short: "-q", help: "no summaries: only warnings and notices")
    static let verbose = Option("--verbose", short: "-v", help: "one line per document written or removed")

    var common: CommonOptions
    var indexing: IndexingOptions
    var options: WatchOptions
    var json: Bool
    var quiet: Bool
    var verbose: Bool
    var folders: [String]

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        indexing = IndexingOptions(parsing: &arguments)
        options = indexing.watch
        if let seconds = arguments.integer(Self.poll) { options.rescanEvery = .seconds(seconds) }
        json = arguments.flag(Self.json)
        quiet = arguments.flag(Self.quiet)
        verbose = arguments.flag(Self.verbose)
        folders = arguments.operands
        if quiet && verbose { throw UsageError("--quiet and --verbose contradict each other: pick one") }
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, environment: console.environment)
        let roots = folders.map { IndexLocation.expandingTilde($0, environment: console.environment) }
        if roots.isEmpty, try !settings.location.exists() {
            throw UsageError("no index at \(settings.location) yet — name a folder: trove watch FOLDER")
        }
        let index = try await indexing.openForIndexing(settings, common: common, console: console, quiet: quiet)
        var options = options
        options.index.roots = roots
        options.index.stop = Interrupts.listen()
        defer { Interrupts.stopListening() }
        let stopped = try await WatchLog(console: console, json: json, quiet: quiet, verbose: verbose)
            .follow(index.watch(options))
        return stopped ? ExitCode.interrupted : ExitCode.success
    }
}

/// Prints what a watch does: shared by `trove watch`, `trove serve --watch` and `trove mcp --watch` (whose
/// stdout is the protocol, so it never passes `json`).
struct WatchLog {
    var console: Console
    var json = false
    var quiet = false
    var verbose = false
    /// Also sees every event (`trove web` shows the watch's progress in its status).
    var observe: @Sendable (WatchEvent) -> Void = { _ in }

    /// Follows `events` until the watch ends; true when it ended on a stop request (Ctrl-C, SIGTERM).
    func follow(_ events: AsyncThrowingStream<WatchEvent, any Error>) async throws -> Bool {
        var interrupted = false
        for try await event in events {
            observe(event)
            switch event {
            case .watching(let roots, let folders):
                console.log("watching \(roots.joined(separator: ", ")) (\(folders) folders); Ctrl-C stops")
            case .notice(let message):
                console.log("watch: \(message)")
            case .indexing(.skipped(let message)), .indexing(.warning(let message)):
                if !quiet { console.log("warning: \(message)") }
            case .indexing(.document(let path, let change, let chunks, let reused)):
                guard verbose, change != .touched else { continue }
                let detail = change == .removed ? "" : " (\(chunks) chunks, \(reused) reused)"
                console.log("\(change.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(path)\(detail)")
            case .indexing:
                continue
            case .pass(let pass):
                interrupted = pass.summary.interrupted
                if json {
                    console.print(try JSONOutput.encode(pass))
                } else if !quiet {
                    console.log(Self.describe(pass))
                }
            }
        }
        // The stream ends on a stop request, or when its consumer goes; either way the batch in hand was written.
        return interrupted || Interrupts.stop.isStopped
    }

    /// Starts watching the index's folders beside a server (`serve --watch`, `mcp --watch`, `web --watch`); the watch's own
    /// failure is logged and ends only the watch, never the server.
    static func background(
        _ index: TroveIndex, _ indexing: IndexingOptions, console: Console,
        observe: @escaping @Sendable (WatchEvent) -> Void = { _ in }
    ) async throws {
        let events = try await index.watch(indexing.watch)
        Task {
            do {
                _ = try await WatchLog(console: console, quiet: false, observe: observe).follow(events)
            } catch {
                console.log("watch: stopped: \(error)")
            }
        }
    }

    /// `changes: 1 changed, 0 new, 0 removed; 3 chunks embedded, 2 reused in 0.1 s`.
    static func describe(_ pass: WatchPass) -> String {
        let summary = pass.summary
        let what = pass.reason == .startup ? "caught up" : "\(pass.paths) \(pass.paths == 1 ? "path" : "paths")"
        var text =
            "\(what): \(summary.newDocuments) new, \(summary.changedDocuments) changed, "
            + "\(summary.removedDocuments) removed"
        if pass.reason == .startup { text += ", \(summary.unchangedDocuments) unchanged" }
        if summary.skippedFiles > 0 { text += ", \(summary.skippedFiles) skipped" }
        text +=
            "; \(summary.chunksEmbedded) chunks embedded, \(summary.chunksReused) reused in "
            + String(format: "%.2f", summary.seconds) + " s"
        if summary.interrupted { text += " (stopped: the rest is picked up by the next start)" }
        return text
    }
}
