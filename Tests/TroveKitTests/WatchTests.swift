import Foundation
@preconcurrency import Glibc
import Ollama
import Synchronization
import Testing
import TroveKit
import TroveTestSupport

/// A watched folder over a real index (fake Ollama on loopback), with what the watch reported.
final class WatchRig: Sendable {
    let server: FakeOllamaServer
    let folder: TemporaryDirectory
    let root: String
    let index: TroveIndex
    let stop = StopSignal()
    private let passes = Mutex<[WatchPass]>([])
    private let notices = Mutex<[String]>([])
    private let ended = Mutex<(any Error)?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(
        files: [String: String] = ["a.md": "# Alpha\n\nthe first note\n"],
        tweak: (inout WatchOptions) -> Void = { _ in },
        before: (_ index: TroveIndex, _ root: String) async throws -> Void = { _, _ in },
        watching: () throws -> Void = {}
    )
        async throws
    {
        server = try FakeOllamaServer()
        folder = try TemporaryDirectory()
        root = folder.path + "/notes"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (path, text) in files { try folder.write("notes/" + path, text) }
        index = try TroveIndex(
            creating: TroveConfiguration(
                location: .file(folder.path + "/i.sqlite"), ollama: OllamaClient(baseURL: server.baseURL),
                modelFolder: "/none"), embedder: EmbedderChoice(provider: .ollama))
        try await before(index, root)
        var options = WatchOptions(
            index: IndexOptions(roots: [root], retry: RetryPolicy(retries: 0)), quiet: .milliseconds(100),
            maxWait: .seconds(1), firstBackoff: .milliseconds(100))
        options.maxBackoff = .milliseconds(200)
        tweak(&options)
        options.index.stop = stop
        let events = try await index.watch(options)
        try watching()
        task.withLock {
            $0 = Task { [self] in
                do {
                    for try await event in events {
                        switch event {
                        case .pass(let pass): self.passes.withLock { $0.append(pass) }
                        case .notice(let text): self.notices.withLock { $0.append(text) }
                        default: continue
                        }
                    }
                } catch {
                    self.ended.withLock { $0 = error }
                }
            }
        }
        _ = try await nextPass(after: 0)
    }

    var passCount: Int { passes.withLock { $0.count } }
    var allPasses: [WatchPass] { passes.withLock { $0 } }
    var allNotices: [String] { notices.withLock { $0 } }
    /// Whether the inotify queue overflowed, so that a pass rescanned the whole folder (`max_queued_events` too small
    /// for one write's events): checks that no pass starts, or that a pass looks at one file, do not hold then.
    var overflowed: Bool { allNotices.contains { $0.contains("overflowed") } }

    /// The first pass after the `count`th; fails the test after four minutes (generous: the whole suite shares 2
    /// cores, and kept a pass waiting over a minute once).
    func nextPass(after count: Int, within seconds: Double = 240) async throws -> WatchPass {
        let seen = try await poll(within: seconds, every: .milliseconds(10)) { () -> WatchPass? in
            if let pass = passes.withLock({ $0.count > count ? $0[count] : nil }) { return pass }
            if let error = ended.withLock({ $0 }) { throw error }
            return nil
        }
        if let seen { return seen }
        Issue.record("no watch pass within \(seconds) s (passes so far: \(passCount))")
        throw CancellationError()
    }

    /// Runs `change`, then waits for the pass it causes.
    @discardableResult
    func change(_ change: () throws -> Void) async throws -> WatchPass {
        let before = passCount
        try change()
        return try await nextPass(after: before)
    }

    /// Root-relative paths of the indexed documents.
    func indexed() async throws -> Set<String> { Set(try await index.documents().map(\.relativePath)) }

    /// Waits until the index holds exactly `paths` (passes may take a moment to follow one another).
    func expectIndexed(_ paths: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var last: Set<String> = []
        if await eventually(within: 60, { last = try await indexed(); return last == paths }) { return }
        Issue.record("indexed \(last.sorted()), expected \(paths.sorted())", sourceLocation: sourceLocation)
    }

    /// Whether a keyword search finds `word` in `path`.
    func finds(_ word: String, in path: String) async throws -> Bool {
        try await index.search(SearchRequest(query: word, mode: .keyword, limit: 5)).contains {
            $0.relativePath == path
        }
    }

    /// What a full `trove index` pass would still change after the watch: nothing, when it missed nothing.
    /// (Waits while the watcher's own pass holds the writer lock.)
    func fullPassChanges() async throws -> Int {
        let deadline = Date().addingTimeInterval(60)
        while true {
            do {
                var summary: IndexSummary?
                for try await progress in try await index.index(IndexOptions(roots: [root])) {
                    if case .finished(let done) = progress { summary = done }
                }
                let done = try #require(summary)
                return done.newDocuments + done.changedDocuments + done.removedDocuments
            } catch let error where String(describing: error).contains("is writing index") && Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Waits until a notice satisfies `condition`.
    func eventuallyNotice(_ condition: (String) -> Bool) async -> Bool {
        await eventually { allNotices.contains(where: condition) }
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    func write(_ relative: String, _ text: String) throws { try folder.write("notes/" + relative, text) }

    func finish() async {
        stop.stop()
        await task.withLock { $0 }?.value
    }
}

@Suite("trove watch: real file operations reach the index through the incremental pass", .serialized)
struct WatchTests {
    @Test("a new file, an edit and a deletion each end in one pass over just that file")
    func writeEditDelete() async throws {
        let rig = try await WatchRig()
        let startup = rig.allPasses[0]
        #expect(startup.reason == .startup && startup.summary.newDocuments == 1)
        let added = try await rig.change { try rig.write("b.md", "# Beta\n\nzebra crossing\n") }
        #expect(added.reason == .changes && added.paths == 1 && added.summary.newDocuments == 1)
        #expect(added.summary.filesTotal == 1 || rig.overflowed, "the pass looked at the changed file only")
        #expect(try await rig.finds("zebra", in: "b.md"))
        let edited = try await rig.change { try rig.write("b.md", "# Beta\n\nzebra crossing\n\nand a yak\n") }
        #expect(edited.summary.changedDocuments == 1)
        #expect(try await rig.finds("yak", in: "b.md"))
        let removed = try await rig.change { try FileManager.default.removeItem(atPath: rig.path("b.md")) }
        #expect(removed.summary.removedDocuments == 1)
        try await rig.expectIndexed(["a.md"])
        #expect(try await rig.fullPassChanges() == 0)
        await rig.finish()
    }

    @Test("an editor's save (temp file renamed over) and 100 writes in a second are one pass, embedded once")
    func burstsCoalesce() async throws {
        // The defaults (300 ms quiet, 2 s at most): 100 writes 2 ms apart are one burst even on a loaded machine.
        let rig = try await WatchRig {
            $0.quiet = .milliseconds(300)
            $0.maxWait = .seconds(2)
        }
        let embedded = rig.server.embeddedInputCount
        let saved = try await rig.change {
            try rig.write("a.md.tmp", "# Alpha\n\nsaved by an editor: quokka\n")
            try rig.write("4913", "vim's probe")
            try FileManager.default.removeItem(atPath: rig.path("4913"))
            #expect(rename(rig.path("a.md.tmp"), rig.path("a.md")) == 0)
        }
        #expect(saved.summary.changedDocuments == 1 && saved.summary.newDocuments == 0)
        #expect(try await rig.finds("quokka", in: "a.md"))
        #expect(rig.server.embeddedInputCount - embedded == 1)

        let before = rig.server.embeddedInputCount
        let passes = rig.passCount
        for round in 0..<100 {
            try rig.write("a.md", "# Alpha\n\nrevision \(round) of the note\n")
            usleep(2_000)
        }
        _ = try await rig.nextPass(after: passes)
        try await Task.sleep(for: .milliseconds(700))
        #expect(rig.passCount == passes + 1, "one pass for the burst")
        #expect(rig.server.embeddedInputCount - before == 1, "the last revision embedded once")
        #expect(try await rig.finds("revision 99", in: "a.md"))
        await rig.finish()
    }

    @Test("editor scratch files never start a pass nor reach the index")
    func scratchFiles() async throws {
        let rig = try await WatchRig()
        let passes = rig.passCount
        for name in [".a.md.swp", ".a.md.swx", "a.md~", "4913", ".#a.md", "a.md.tmp"] {
            try rig.write(name, "scratch")
        }
        try await Task.sleep(for: .milliseconds(600))
        #expect(rig.passCount == passes || rig.overflowed)
        try await rig.expectIndexed(["a.md"])
        await rig.finish()
    }

    @Test("mkdir -p deep, moving a folder in and out: new folders are watched, moved-away ones dropped")
    func foldersComeAndGo() async throws {
        let rig = try await WatchRig()
        try await rig.change {
            try FileManager.default.createDirectory(atPath: rig.path("x/y/z/w"), withIntermediateDirectories: true)
            try rig.write("x/y/z/w/deep.md", "deep down\n")
        }
        try await rig.expectIndexed(["a.md", "x/y/z/w/deep.md"])
        // A file written into the new folder later is seen too: the folder is watched now.
        try await rig.change { try rig.write("x/y/z/w/later.md", "later on\n") }
        try await rig.expectIndexed(["a.md", "x/y/z/w/deep.md", "x/y/z/w/later.md"])

        let outside = rig.folder.path + "/outside"
        try rig.folder.write("outside/inner/moved.md", "moved in\n")
        try await rig.change { try FileManager.default.moveItem(atPath: outside, toPath: rig.path("in")) }
        try await rig.expectIndexed(["a.md", "x/y/z/w/deep.md", "x/y/z/w/later.md", "in/inner/moved.md"])
        try await rig.change { try rig.write("in/inner/new.md", "inside the moved folder\n") }
        try await rig.expectIndexed([
            "a.md", "x/y/z/w/deep.md", "x/y/z/w/later.md", "in/inner/moved.md", "in/inner/new.md",
        ])

        try await rig.change { try FileManager.default.moveItem(atPath: rig.path("x"), toPath: outside) }
        try await rig.expectIndexed(["a.md", "in/inner/moved.md", "in/inner/new.md"])
        // Edits in the folder that left start nothing: its watches are gone.
        let passes = rig.passCount
        try rig.folder.write("outside/y/z/w/deep.md", "edited after leaving\n")
        try await Task.sleep(for: .milliseconds(500))
        #expect(rig.passCount == passes || rig.overflowed)
        try await rig.change { try FileManager.default.removeItem(atPath: rig.path("in")) }
        try await rig.expectIndexed(["a.md"])
        #expect(try await rig.fullPassChanges() == 0)
        await rig.finish()
    }

    @Test("a symbolic link pointed elsewhere is indexed with its new target's text")
    func symlinkChanged() async throws {
        let rig = try await WatchRig()
        try rig.folder.write("targets/one.md", "the first target: walrus\n")
        try rig.folder.write("targets/two.md", "the second target: narwhal\n")
        try await rig.change {
            #expect(symlink(rig.folder.path + "/targets/one.md", rig.path("link.md")) == 0)
        }
        #expect(try await rig.finds("walrus", in: "link.md"))
        try await rig.change {
            // As `ln -sf` does it: a new link renamed over the old one.
            #expect(symlink(rig.folder.path + "/targets/two.md", rig.path("link.md.tmp")) == 0)
            #expect(rename(rig.path("link.md.tmp"), rig.path("link.md")) == 0)
        }
        #expect(try await rig.finds("narwhal", in: "link.md"))
        #expect(!(try await rig.finds("walrus", in: "link.md")))
        #expect(try await rig.fullPassChanges() == 0)
        await rig.finish()
    }

    @Test("chmod 000 on a file and a folder: the watch ends where a full trove index pass would")
    func permissionsChanged() async throws {
        let rig = try await WatchRig(files: ["a.md": "alpha\n", "sub/b.md": "beta\n"])
        try await rig.change { #expect(chmod(rig.path("a.md"), 0) == 0) }
        try await rig.change { #expect(chmod(rig.path("sub"), 0) == 0) }
        // As root both stay readable; as anyone else both leave the index. Either way nothing is left over.
        #expect(try await rig.fullPassChanges() == 0)
        chmod(rig.path("sub"), 0o755)
        chmod(rig.path("a.md"), 0o644)
        try await Task.sleep(for: .milliseconds(400))
        #expect(try await rig.fullPassChanges() == 0)
        try await rig.expectIndexed(["a.md", "sub/b.md"])
        await rig.finish()
    }

    @Test("an edited .gitignore re-evaluates its folder: newly ignored files leave, re-included ones return")
    func ignoreFileEdited() async throws {
        let rig = try await WatchRig(files: [
            "a.md": "alpha\n", "drafts/d.md": "a draft\n", "drafts/deeper/e.md": "deeper draft\n",
        ])
        try await rig.expectIndexed(["a.md", "drafts/d.md", "drafts/deeper/e.md"])
        try await rig.change { try rig.write(".gitignore", "drafts/\n") }
        try await rig.expectIndexed(["a.md"])
        // The ignored folder is not watched any more: writing there starts nothing.
        let passes = rig.passCount
        try rig.write("drafts/deeper/f.md", "ignored\n")
        try await Task.sleep(for: .milliseconds(500))
        #expect(rig.passCount == passes || rig.overflowed)
        try await rig.change { try rig.write(".gitignore", "# nothing ignored\n") }
        try await rig.expectIndexed(["a.md", "drafts/d.md", "drafts/deeper/e.md", "drafts/deeper/f.md"])
        // And watched again.
        try await rig.change { try rig.write("drafts/deeper/g.md", "back\n") }
        try await rig.expectIndexed([
            "a.md", "drafts/d.md", "drafts/deeper/e.md", "drafts/deeper/f.md", "drafts/deeper/g.md",
        ])
        await rig.finish()
    }

    static let queuedEvents = "/proc/sys/fs/inotify/max_queued_events"
    static let canLowerQueue = getuid() == 0 && access(queuedEvents, W_OK) == 0

    @Test(
        "a real inotify queue overflow rescans everything once, logged, and misses nothing",
        .enabled(if: canLowerQueue, "needs root to lower /proc/sys/fs/inotify/max_queued_events"))
    func queueOverflow() async throws {
        let saved = try String(contentsOfFile: Self.queuedEvents, encoding: .utf8)
        let restore = { try saved.write(toFile: Self.queuedEvents, atomically: false, encoding: .utf8) }
        // The limit is read when the inotify instance is made: lower it for this watcher's start only (the other
        // suites' watchers start meanwhile), then restore it. Scripts/test.sh raises it again should a killed run
        // have left it lowered.
        let rig: WatchRig
        do {
            rig = try await WatchRig(
                before: { _, _ in try "1\n".write(toFile: Self.queuedEvents, atomically: false, encoding: .utf8) },
                watching: restore)
        } catch {
            try restore()
            throw error
        }
        var expected: Set<String> = ["a.md"]
        for round in 0..<5 where !rig.overflowed {
            for number in 0..<400 {
                let name = "burst\(round)/n\(number).md"
                try FileManager.default.createDirectory(
                    atPath: rig.path("burst\(round)"), withIntermediateDirectories: true)
                try rig.write(name, "note \(number) of round \(round)\n")
                expected.insert(name)
            }
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(rig.overflowed, "an overflow with a queue of 1 event")
        try FileManager.default.createDirectory(atPath: rig.path("again"), withIntermediateDirectories: true)
        for number in 0..<50 {
            try rig.write("again/n\(number).md", "note \(number) after the overflow\n")
            expected.insert("again/n\(number).md")
        }
        try await rig.expectIndexed(expected)
        let notices = rig.allNotices.filter { $0.contains("overflowed") }
        #expect(notices.count == 1, "said once: \(notices)")
        #expect(notices.first?.contains("sudo sysctl fs.inotify.max_queued_events=16384") == true)
        #expect(try await rig.fullPassChanges() == 0)
        await rig.finish()
    }

    @Test("past the watch limit: one message naming it and the sysctl, and those folders are scanned periodically")
    func watchLimit() async throws {
        let rig = try await WatchRig(files: ["a.md": "alpha\n", "one/b.md": "beta\n", "two/c.md": "gamma\n"]) {
            $0.watchLimit = 2
            $0.fallbackEvery = .milliseconds(300)
        }
        let notices = rig.allNotices.filter { $0.contains("max_user_watches") }
        #expect(notices.count == 1, "\(rig.allNotices)")
        #expect(notices.first?.contains("sudo sysctl fs.inotify.max_user_watches=524288") == true)
        #expect(notices.first?.contains(": 1 folder is scanned every 0.3 s instead of watched") == true)
        // "two" is the folder left unwatched (folders are watched in sorted order: "", "one", "two").
        try rig.write("two/d.md", "delta, seen by the periodic scan\n")
        try await rig.expectIndexed(["a.md", "one/b.md", "two/c.md", "two/d.md"])
        try rig.write("one/e.md", "epsilon, seen by inotify\n")
        try await rig.expectIndexed(["a.md", "one/b.md", "two/c.md", "two/d.md", "one/e.md"])
        #expect(rig.allNotices.filter { $0.contains("max_user_watches") }.count == 1, "said once")
        await rig.finish()
    }

    @Test("while Ollama fails, changes wait (said once) and are indexed when it is back")
    func ollamaDown() async throws {
        let rig = try await WatchRig()
        rig.server.fault = .status(503, message: "server busy")
        try rig.write("b.md", "written while ollama was down\n")
        try rig.write("c.md", "this one too\n")
        try await Task.sleep(for: .seconds(1.5))
        try rig.write("d.md", "and a third\n")
        try await Task.sleep(for: .milliseconds(700))
        let waiting = rig.allNotices.filter { $0.hasPrefix("waiting") }
        #expect(waiting.count == 1, "said once: \(rig.allNotices)")
        #expect(try await rig.indexed() == ["a.md"])
        rig.server.fault = .normal
        try await rig.expectIndexed(["a.md", "b.md", "c.md", "d.md"])
        #expect(await rig.eventuallyNotice { $0.hasPrefix("indexing again") })
        await rig.finish()
    }

    @Test("while another process holds the writer lock, changes wait for it, naming its pid")
    func writerLockHeld() async throws {
        let rig = try await WatchRig()
        let lock = open(rig.folder.path + "/i.sqlite.lock", O_RDWR | O_CREAT, 0o600)
        #expect(lock >= 0)
        #expect(flock(lock, LOCK_EX | LOCK_NB) == 0)
        _ = ftruncate(lock, 0)
        _ = "4242\n".withCString { write(lock, $0, 5) }
        try rig.write("b.md", "waits for the lock\n")
        try await Task.sleep(for: .milliseconds(800))
        #expect(await rig.eventuallyNotice { $0.contains("pid 4242") }, "\(rig.allNotices)")
        #expect(try await rig.indexed() == ["a.md"])
        close(lock)
        try await rig.expectIndexed(["a.md", "b.md"])
        await rig.finish()
    }

    @Test("Ctrl-C (the stop signal) finishes the watch; nothing is left running")
    func stopEnds() async throws {
        let rig = try await WatchRig()
        let started = Date()
        await rig.finish()
        #expect(Date().timeIntervalSince(started) < 2)
    }
}
