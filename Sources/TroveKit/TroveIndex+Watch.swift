import Ollama
import TroveIngest
import TroveStore

/// How `TroveIndex.watch` watches and indexes.
public struct WatchOptions: Sendable {
    /// What each pass does (crawl rules, batch size, retries, the stop signal); `roots` empty: the index's folders.
    public var index: IndexOptions
    /// A burst ends once this long passes with no event…
    public var quiet: Duration
    /// …or this long after its first event, whichever comes first.
    public var maxWait: Duration
    /// Rescan every folder this often whatever inotify reports (`--poll`: network mounts); nil: events only.
    public var rescanEvery: Duration?
    /// How often folders that could not be watched (max_user_watches used up) are scanned instead.
    public var fallbackEvery: Duration
    /// The longest wait between retries while the model server is down or another process writes the index.
    public var maxBackoff: Duration
    /// The first of those waits.
    public var firstBackoff: Duration
    /// Watch at most this many folders, as if `fs.inotify.max_user_watches` ran out there (to test the fallback
    /// without lowering a machine-wide limit); nil: as many as the kernel allows.
    public var watchLimit: Int?

    public init(
        index: IndexOptions, quiet: Duration = .milliseconds(300), maxWait: Duration = .seconds(2),
        rescanEvery: Duration? = nil, fallbackEvery: Duration = .seconds(30), maxBackoff: Duration = .seconds(30),
        firstBackoff: Duration = .seconds(1)
    ) {
        self.index = index
        self.quiet = quiet
        self.maxWait = maxWait
        self.rescanEvery = rescanEvery
        self.fallbackEvery = fallbackEvery
        self.maxBackoff = maxBackoff
        self.firstBackoff = firstBackoff
    }
}

/// One incremental pass the watcher ran, and why.
public struct WatchPass: Sendable, Equatable, Codable {
    public enum Reason: String, Sendable, Codable {
        /// The catch-up pass at start: whatever changed while nothing watched.
        case startup
        /// Files or folders changed.
        case changes
    }

    public var reason: Reason
    /// Paths the pass looked at (files, or folders with what is below them); a whole folder counts once.
    public var paths: Int
    public var summary: IndexSummary
}

/// What a watch reports as it runs.
public enum WatchEvent: Sendable {
    /// Watching these roots, with this many folders under inotify.
    case watching(roots: [String], folders: Int)
    /// An event of the pass in progress (warnings, skipped files, documents written).
    case indexing(IndexEvent)
    /// A pass finished.
    case pass(WatchPass)
    /// Something said once: a queue overflow, the watch limit, waiting for the model server, a failed pass.
    case notice(String)
}

extension TroveIndex {
    /// Watches the index's folders (or `options.index.roots`) and keeps the index current: each debounced burst of
    /// changes runs one ordinary incremental pass (`index(_:)`) limited to the changed paths, so vectors are reused
    /// by passage hash and every batch is one transaction, exactly as in `trove index`. Starts with a catch-up
    /// pass over everything. Runs until `options.index.stop` is raised (the batch being written is finished) or
    /// the iteration ends. While the model server is down or another process holds the writer lock, changes wait
    /// (bounded: see `ChangeSet`) and are retried with backoff; that is said once.
    public func watch(_ options: WatchOptions) throws -> AsyncThrowingStream<WatchEvent, any Error> {
        let roots =
            options.index.roots.isEmpty
            ? try store.roots().map(\.path) : options.index.roots.map(Crawler.standardizedRoot)
        guard !roots.isEmpty else {
            throw WatchError(
                code: .noFolders, message: "index \(location) has no folders yet — run: trove watch FOLDER")
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: WatchEvent.self)
        let (ticks, tick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let watcher = try FolderWatcher(
            FolderWatcher.Configuration(
                roots: roots, crawl: options.index.crawl, quiet: options.quiet, maxWait: options.maxWait,
                rescanEvery: options.rescanEvery, fallbackEvery: options.fallbackEvery, watchLimit: options.watchLimit),
            onReady: { tick.yield() }, onNotice: { continuation.yield(.notice($0.description)) })
        let folders = try watcher.start()
        continuation.yield(.watching(roots: roots, folders: folders))
        let stop = options.index.stop ?? StopSignal()
        stop.whenStopped {
            watcher.stop()
            tick.finish()
        }
        watcher.requestFullPass()
        let task = Task {
            defer { watcher.stop() }
            do {
                try await self.watchLoop(options, stop: stop, watcher: watcher, ticks: ticks, continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in
            task.cancel()
            watcher.stop()
            tick.finish()
        }
        return stream
    }

    private func watchLoop(
        _ options: WatchOptions, stop: StopSignal, watcher: FolderWatcher, ticks: AsyncStream<Void>,
        _ continuation: AsyncThrowingStream<WatchEvent, any Error>.Continuation
    ) async throws {
        var waits = ticks.makeAsyncIterator()
        var reason = WatchPass.Reason.startup
        var waiting: String?
        var backoff = options.firstBackoff
        while !stop.isStopped && !Task.isCancelled {
            let changes = watcher.take()
            if changes.isEmpty {
                // Idle: suspended here until the watcher thread hands over a burst, or a stop.
                guard await waits.next() != nil else { return }
                continue
            }
            var pass = options.index
            if reason == .changes {
                // `--reextract` and `--retry-failed` are for the catch-up pass; later passes read what changed.
                pass.reextract = false
                pass.retryFailed = false
            }
            pass.roots = changes.roots
            pass.within = changes.absolutePaths
            pass.stop = stop
            do {
                let summary = try await runPass(pass, continuation)
                continuation.yield(.pass(WatchPass(reason: reason, paths: changes.count, summary: summary)))
                if waiting != nil {
                    continuation.yield(.notice("indexing again: the changes that waited are saved"))
                    waiting = nil
                    backoff = options.firstBackoff
                }
                if summary.interrupted { return }
            } catch let error where Self.isTransient(error) {
                // Nothing of the failed batch was saved: keep its changes for the next try.
                watcher.putBack(changes)
                if waiting == nil {
                    let why = String(describing: error)
                    waiting = why
                    continuation.yield(.notice("waiting: \(why) — changes are kept and retried"))
                }
                try await Self.sleep(backoff, unless: stop)
                backoff = min(backoff * 2, options.maxBackoff)
                continue
            } catch {
                // The catch-up pass failing (a folder gone, a model mismatch) ends the watch: say so at once.
                if reason == .startup { throw error }
                continuation.yield(.notice("a pass failed: \(error) — its changes are picked up by the next start"))
            }
            reason = .changes
        }
    }

    /// One ordinary incremental pass, its events forwarded.
    private func runPass(
        _ options: IndexOptions, _ continuation: AsyncThrowingStream<WatchEvent, any Error>.Continuation
    ) async throws -> IndexSummary {
        var finished: IndexSummary?
        for try await progress in try index(options) {
            switch progress {
            case .event(let event): continuation.yield(.indexing(event))
            case .finished(let summary): finished = summary
            }
        }
        guard let finished else { throw CancellationError() }
        return finished
    }

    /// Failures that pass on their own: the model server down or busy, another process writing the index.
    static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? OllamaError {
            return [.unreachable, .timeout, .serverBusy, .serverError].contains(error.kind)
        }
        if let error = error as? StoreError { return error.code == .locked }
        return false
    }

    /// Sleeps `duration`, in slices so a stop ends it within a fifth of a second (only while waiting to retry).
    private static func sleep(_ duration: Duration, unless stop: StopSignal) async throws {
        let end = ContinuousClock.now + duration
        while !stop.isStopped && ContinuousClock.now < end {
            try await Task.sleep(for: min(.milliseconds(200), end - ContinuousClock.now))
        }
    }
}
