import Foundation
import Synchronization
import TroveIngest

/// Watches every folder the crawl would enter under some roots, on a thread of its own that blocks in `poll`, and
/// turns inotify events into a `ChangeSet`, debounced: a burst is handed over once `quiet` passes with no event,
/// or `maxWait` after its first event, whichever comes first. Nothing is indexed here: the changes go to
/// `TroveIndex.watch`, which runs the ordinary incremental pass over them.
final class FolderWatcher: @unchecked Sendable {
    // @unchecked: the inotify handle and the folder maps are used by the watcher thread only (and by `start` before
    // that thread exists); `ready` is behind its mutex, `stopped` is atomic, the wake descriptor is a pipe's end.

    struct Configuration: Sendable {
        var roots: [String]
        var crawl: CrawlOptions
        var quiet: Duration
        var maxWait: Duration
        /// Rescan every root this often whatever inotify says (`--poll`); nil: only on events.
        var rescanEvery: Duration?
        /// How often folders that could not be watched (max_user_watches used up) are scanned instead.
        var fallbackEvery: Duration
        /// At most this many watches, as if max_user_watches ran out there (tests of the fallback); nil: the kernel's.
        var watchLimit: Int?
    }

    /// Something the user should hear about once.
    enum Notice: Sendable {
        case overflow(limit: Int?)
        case watchLimit(limit: Int?, unwatched: Int, every: Duration)
    }

    let configuration: Configuration
    private let inotify: Inotify
    private let wakeDescriptor: Int32
    /// Watch descriptor → (root, root-relative folder).
    private var folders: [Int32: (root: String, relative: String)] = [:]
    /// Absolute folder path → watch descriptor.
    private var watches: [String: Int32] = [:]
    /// Folders that could not be watched, per root: scanned every `fallbackEvery` instead.
    private var unwatched: [String: Set<String>] = [:]
    private var limitNoticed = false
    private var overflowNoticed = false
    /// Debounced changes waiting for the consumer.
    private let ready = Mutex(ChangeSet())
    private let stopped = Atomic<Bool>(false)
    private let onReady: @Sendable () -> Void
    private let onNotice: @Sendable (Notice) -> Void
    private var thread: Thread?

    init(
        _ configuration: Configuration, onReady: @escaping @Sendable () -> Void,
        onNotice: @escaping @Sendable (Notice) -> Void
    ) throws {
        self.configuration = configuration
        inotify = try Inotify()
        wakeDescriptor = inotify.wakeDescriptor
        self.onReady = onReady
        self.onNotice = onNotice
    }

    /// Watches every root's folders (before returning, so a pass started next misses nothing), then starts the
    /// thread. Returns how many folders are watched. Throws `CrawlError` for a root that is not a folder.
    func start() throws -> Int {
        for root in configuration.roots {
            try watchTree(root: root, below: "")
        }
        let thread = Thread { [self] in loop() }
        thread.name = "trove watch"
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
        return watches.count
    }

    /// Ends the thread (safe from any thread, more than once).
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Inotify.wake(wakeDescriptor)
    }

    /// Takes every change handed over so far.
    func take() -> ChangeSet {
        ready.withLock { current in
            defer { current = ChangeSet() }
            return current
        }
    }

    /// Gives changes back (a pass failed before saving them); they go out with the next batch.
    func putBack(_ changes: ChangeSet) { ready.withLock { $0.merge(changes) } }

    /// Queues a pass over everything (start-up catch-up) without waiting for an event.
    func requestFullPass() {
        ready.withLock { set in for root in configuration.roots { set.add(root: root, "") } }
    }

    // MARK: The thread

    private func loop() {
        let clock = ContinuousClock()
        var pending = ChangeSet()
        var rewatch: [String: Set<String>] = [:]
        var first: ContinuousClock.Instant?
        var last: ContinuousClock.Instant?
        var nextRescan = configuration.rescanEvery.map { clock.now + $0 }
        var nextFallback: ContinuousClock.Instant?
        while !stopped.load(ordering: .acquiring) {
            if nextFallback == nil && !unwatched.isEmpty { nextFallback = clock.now + configuration.fallbackEvery }
            var deadlines: [ContinuousClock.Instant] = []
            if let first, let last { deadlines.append(min(last + configuration.quiet, first + configuration.maxWait)) }
            if let nextRescan { deadlines.append(nextRescan) }
            if let nextFallback { deadlines.append(nextFallback) }
            // No deadline: block until an event or a stop. Nothing wakes this loop while nothing changes.
            let timeout = deadlines.min().map { max(.zero, $0 - clock.now) }
            let (events, _) = inotify.wait(timeout: timeout)
            if stopped.load(ordering: .acquiring) { break }
            let now = clock.now
            for event in events where handle(event, into: &pending, rewatch: &rewatch) {
                if first == nil { first = now }
                last = now
            }
            var due = false
            if let deadline = nextRescan, now >= deadline {
                for root in configuration.roots { pending.add(root: root, "") }
                nextRescan = now + (configuration.rescanEvery ?? .seconds(60))
                due = true
            }
            if let deadline = nextFallback, now >= deadline {
                // Scan what could not be watched, and try to watch it again (the limit may have been raised).
                for (root, relatives) in unwatched {
                    for relative in relatives {
                        pending.add(root: root, relative)
                        rewatch[root, default: []].insert(relative)
                    }
                }
                unwatched = [:]
                nextFallback = nil
                due = true
            }
            if let first, let last, now >= min(last + configuration.quiet, first + configuration.maxWait) { due = true }
            guard due, !pending.isEmpty || !rewatch.isEmpty else { continue }
            // New folders are watched before the pass crawls them: what lands in them meanwhile is seen either way.
            for (root, relatives) in rewatch {
                for relative in Self.outermost(relatives) { try? watchTree(root: root, below: relative) }
            }
            rewatch = [:]
            let handed = pending
            ready.withLock { $0.merge(handed) }
            pending = ChangeSet()
            first = nil
            last = nil
            onReady()
        }
    }

    /// Records what `event` changed; true when it counts towards the debounce.
    private func handle(
        _ event: Inotify.Event, into pending: inout ChangeSet, rewatch: inout [String: Set<String>]
    ) -> Bool {
        if event.has(IN_Q_OVERFLOW) {
            // Events were lost: rescan everything (the incremental pass makes that cheap) and re-walk the folders.
            // Said once: a queue too small for the folder's bursts overflows again on the next one.
            if !overflowNoticed {
                overflowNoticed = true
                onNotice(.overflow(limit: Self.sysctl(.maxQueuedEvents)))
            }
            for root in configuration.roots {
                pending.add(root: root, "")
                rewatch[root, default: []].insert("")
            }
            return true
        }
        guard let folder = folders[event.descriptor] else { return false }
        if event.has(IN_IGNORED) {
            // The folder is gone (deleted, or unwatched by us): forget the descriptor.
            folders[event.descriptor] = nil
            let path = Self.join(folder.root, folder.relative)
            if watches[path] == event.descriptor { watches[path] = nil }
            return false
        }
        // Events on the watched folder itself: its parent reports the same change, except for a root.
        if event.name.isEmpty {
            guard folder.relative.isEmpty, event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF) else { return false }
            pending.add(root: folder.root, "")
            return true
        }
        let child = folder.relative.isEmpty ? event.name : folder.relative + "/" + event.name
        let hidden = event.name.hasPrefix(".")
        if event.has(IN_ISDIR) {
            // The crawl never enters hidden, node_modules or .build folders; neither does the watch.
            if hidden || Crawler.skippedFolderNames.contains(event.name) { return false }
            if event.has(IN_MOVED_FROM) || event.has(IN_DELETE) { unwatch(root: folder.root, below: child) }
            if event.has(IN_CREATE) || event.has(IN_MOVED_TO) || event.has(IN_ATTRIB) {
                rewatch[folder.root, default: []].insert(child)
            }
            pending.add(root: folder.root, child)
            return true
        }
        if event.name == ".gitignore" || event.name == ".troveignore" {
            // The rules of this folder and below changed: re-evaluate the whole subtree, files and watches.
            pending.add(root: folder.root, folder.relative)
            rewatch[folder.root, default: []].insert(folder.relative)
            return true
        }
        // Editor scratch files (.swp, .#lock, 4913, name~, name.tmp) are hidden or not a text kind: the crawl
        // would never index them, so they do not even start a pass. A `.tmp` renamed into place arrives as the
        // real name's IN_MOVED_TO.
        if hidden || DocumentKind(path: event.name) == nil { return false }
        pending.add(root: folder.root, child)
        return true
    }

    /// Watches `below` (root-relative; `""` the root) and every folder the crawl enters under it; drops watches
    /// there that the crawl no longer enters (an ignore rule now excludes them).
    private func watchTree(root: String, below relative: String) throws {
        var entered = Set<String>()
        do {
            try Crawler(options: configuration.crawl).crawl(
                root: root, within: [relative], onFolder: { entered.insert($0) }, onFile: { _ in }, onSkip: { _ in })
        } catch let error as CrawlError {
            if relative.isEmpty { throw error }
            return  // the folder went away again; the pass removes its documents
        }
        let top = Self.join(root, relative)
        for (path, watch) in watches where path == top || path.hasPrefix(top == "/" ? "/" : top + "/") {
            let inside = path == root ? "" : String(path.dropFirst(root == "/" ? 1 : root.count + 1))
            if path.hasPrefix(root) && !entered.contains(inside) {
                inotify.remove(watch)
                watches[path] = nil
                folders[watch] = nil
            }
        }
        var failed: [String] = []
        for folder in entered.sorted() {
            let path = Self.join(root, folder)
            if watches[path] != nil { continue }
            let added =
                watches.count >= (configuration.watchLimit ?? .max) ? .failure(Errno(ENOSPC)) : inotify.add(path)
            switch added {
            case .success(let watch):
                watches[path] = watch
                folders[watch] = (root, folder)
            case .failure(let error) where error.code == ENOSPC:
                failed.append(folder)
            case .failure:
                continue  // gone or unreadable meanwhile: the pass says what it finds
            }
        }
        guard !failed.isEmpty else { return }
        unwatched[root, default: []].formUnion(failed)
        if !limitNoticed {
            limitNoticed = true
            onNotice(
                .watchLimit(
                    limit: Self.sysctl(.maxUserWatches), unwatched: failed.count, every: configuration.fallbackEvery))
        }
    }

    /// Drops the watches of `relative` and every folder below it (moved away or deleted).
    private func unwatch(root: String, below relative: String) {
        let top = Self.join(root, relative)
        for (path, watch) in watches where path == top || path.hasPrefix(top + "/") {
            inotify.remove(watch)
            watches[path] = nil
            folders[watch] = nil
        }
        if var set = unwatched[root] {
            set = set.filter { !($0 == relative || $0.hasPrefix(relative + "/")) }
            unwatched[root] = set.isEmpty ? nil : set
        }
    }

    /// The paths of `relatives` not below another one of them.
    static func outermost(_ relatives: Set<String>) -> [String] {
        if relatives.contains("") { return [""] }
        let sorted = relatives.sorted()
        var kept: [String] = []
        for path in sorted where !kept.contains(where: { path.hasPrefix($0 + "/") }) { kept.append(path) }
        return kept
    }

    static func join(_ root: String, _ relative: String) -> String {
        if relative.isEmpty { return root }
        return root.hasSuffix("/") ? root + relative : root + "/" + relative
    }

    /// The inotify limits a notice names.
    enum Limit: String {
        case maxUserWatches = "max_user_watches"
        case maxQueuedEvents = "max_queued_events"
    }

    /// `fs.inotify.<limit>`, when readable.
    static func sysctl(_ limit: Limit) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/sys/fs/inotify/" + limit.rawValue, encoding: .utf8)
        else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

extension FolderWatcher.Notice: CustomStringConvertible {
    var description: String {
        switch self {
        case .overflow(let limit):
            let value = limit.map { " (\($0))" } ?? ""
            return "the inotify queue overflowed: some events were lost, so every folder is rescanned (each time "
                + "it happens; said once) — if bursts keep overflowing it, raise "
                + "fs.inotify.max_queued_events\(value): sudo sysctl fs.inotify.max_queued_events=16384"
        case .watchLimit(let limit, let unwatched, let every):
            let value = limit.map { " (\($0))" } ?? ""
            let folders = unwatched == 1 ? "1 folder is" : "\(unwatched) folders are"
            return "fs.inotify.max_user_watches\(value) is used up: \(folders) scanned every "
                + String(format: "%g", every.seconds) + " s instead of watched — raise it: "
                + "sudo sysctl fs.inotify.max_user_watches=524288"
        }
    }
}
