import Foundation
import TroveKit
import TroveServe

/// `trove serve`: keeps an index's vectors in memory and answers `trove search` over a Unix socket.
struct ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Keep an index loaded so searches answer without reading it again."
    static let usage = "trove serve [options]"
    static let discussion = """
        Loads the index's vectors once and answers searches on a Unix socket beside it (INDEX.sock, mode 0600)
        until stopped with Ctrl-C. While it runs, `trove search` on the same index asks it instead of loading
        the vectors itself, and falls back to searching on its own when it is not running. Before each search it
        checks whether the index changed (any committed `trove index` run, including --reembed) and reloads if so.
        Only your own user can use the socket; a client whose settings differ where the index's embedder uses them
        (another --ollama for an index of Ollama's, another model folder for the built-in model's, another
        --base-url), or another version of trove, is refused and searches on its own. For a postgresql:// index the
        socket is /tmp/trove-UID-HASH.sock. A --reembed to another provider stops the server (start it again).
        Ctrl-C or SIGTERM stops the server and removes the socket.
        """
    static let optionGroups = [
        OptionGroup("Options", [watch] + CommonOptions.options),
        OptionGroup("Watch options (with --watch, as in trove watch)", IndexingOptions.watching),
    ]
    static let epilogue = """
        Examples:
          trove serve &
          trove search "rotate the api key"      # answered by the running server
          trove serve --watch                    # and re-index each edit within a second
        """

    static let watch = Option("--watch", help: "also keep the index current as files change, as trove watch does")

    var common: CommonOptions
    var watch: Bool
    var indexing: IndexingOptions

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        watch = arguments.flag(Self.watch)
        indexing = try IndexingOptions(watching: &arguments, watch: watch)
        try arguments.noOperands()
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, console: console)
        // The index notices another process's changes itself (a cheap version check per search) and reloads.
        let index = try settings.openIndex()
        try await index.warmUp()
        if watch { try await WatchLog.background(index, indexing, console: console) }
        let socket = SearchServer.socketPath(for: settings.location)
        // Ctrl-C or SIGTERM stops the server, which removes its socket; a second signal exits at once.
        let stop = StopSignal()
        Interrupts.onNext { stop.stop() }
        defer { Interrupts.clear() }
        try await SearchServer.serve(
            index, location: settings.location, admission: settings.servingAdmission, stop: stop,
            ready: { console.log("serving \(settings.location) on \(socket); Ctrl-C stops") },
            log: console.log)
        console.log("stopped; \(socket) removed")
        return ExitCode.interrupted
    }
}
