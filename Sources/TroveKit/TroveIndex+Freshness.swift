import TroveIngest
import TroveStore

/// How one indexed folder compares with the disk now, and how its last indexing pass ended: what `trove status` and
/// MCP `status` report, so a stale index is never called current.
public struct FolderFreshness: Sendable, Equatable {
    /// The folder, absolute.
    public var path: String
    /// Files on disk the index does not hold (`trove index` would add them).
    public var new = 0
    /// Files whose size or modification time differ from when they were indexed.
    public var changed = 0
    /// Indexed files no longer on disk; nil when the walk stopped before seeing the whole folder.
    public var gone: Int? = 0
    /// Whether the walk stopped at its time budget: `new` and `changed` are then lower bounds ("at least").
    public var partial = false
    /// Why the folder could not be walked (it is missing, say); nil when it was.
    public var problem: String?
    /// When the last pass over the folder ended (seconds since 1970); nil when none was recorded.
    public var lastRun: Int64?
    /// Whether that pass stopped early (Ctrl-C, the model server gone): the mark stays until a complete pass.
    public var interrupted = false
    /// Files that pass left unindexed.
    public var filesLeft = 0

    /// A folder not compared yet: nothing counted.
    public init(path: String) { self.path = path }

    /// True only when the whole folder was walked and matches the index, and the last pass finished.
    public var isCurrent: Bool {
        !partial && problem == nil && new == 0 && changed == 0 && gone == 0 && !interrupted
    }
}

extension TroveIndex {
    /// How long `freshness()` walks all folders before it stops and reports lower bounds.
    public static let freshnessBudget = Duration.seconds(2)

    /// Each indexed folder against the disk: the same crawl and ignore rules as `trove index` (its defaults), by size
    /// and modification time only (nothing is read or hashed), within `budget` over all folders.
    public func freshness(budget: Duration = TroveIndex.freshnessBudget) throws -> [FolderFreshness] {
        let deadline = ContinuousClock.now + budget
        let runs = try store.runRecords()
        return try store.roots().map { root in
            var folder = FolderFreshness(path: root.path)
            if let run = runs[root.path] {
                folder.lastRun = run.finishedAt
                folder.interrupted = run.interrupted
                folder.filesLeft = run.filesLeft
            }
            guard ContinuousClock.now < deadline else {
                folder.partial = true
                folder.gone = nil
                return folder
            }
            let stored = try store.documents(inRoot: root.id)
            var seen = 0
            do {
                try Crawler().crawl(
                    root: root.path,
                    onFile: { file in
                        if let old = stored[file.relativePath] {
                            seen += 1
                            if old.size != file.size || old.modifiedNanoseconds != file.modifiedNanoseconds {
                                folder.changed += 1
                            }
                        } else {
                            folder.new += 1
                        }
                        // The clock is read every 256 files: cheap next to a stat each.
                        if (seen + folder.new) & 255 == 0, ContinuousClock.now >= deadline { throw BudgetSpent() }
                    }, onSkip: { _ in })
                folder.gone = stored.count - seen
            } catch is BudgetSpent {
                folder.partial = true
                folder.gone = nil
            } catch {
                folder.problem = String(describing: error)
                folder.gone = stored.count
            }
            return folder
        }
    }
}

/// The walk ran out of its time budget.
private struct BudgetSpent: Error {}
