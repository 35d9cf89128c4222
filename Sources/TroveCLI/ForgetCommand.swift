import Foundation
import TroveIngest
import TroveKit
import TroveStore

/// `trove forget FOLDER…`: removes indexed folders with their documents, chunks and vectors.
struct ForgetCommand: Command {
    static let name = "forget"
    static let abstract = "Remove folders from the index (the files themselves are not touched)."
    static let usage = "trove forget [options] FOLDER…"
    static let discussion = """
        Removes each FOLDER (as listed by trove status) with all its documents, passages and vectors.
        The index file keeps its size until: trove vacuum
        """
    static let optionGroups = [OptionGroup("Options", CommonOptions.options)]
    static let epilogue = """
        Examples:
          trove forget ~/old-notes
        """
    static let operands = Option.Value.folder

    var common: CommonOptions
    var folders: [String]

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        folders = arguments.operands
        if folders.isEmpty { throw UsageError("name the folder to forget, e.g. trove forget ~/old-notes") }
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, environment: console.environment)
        let store = try IndexStore(path: settings.indexPath, createIfMissing: false)
        var status = ExitCode.success
        for folder in folders {
            let path = Crawler.standardizedRoot(IndexLocation.expandingTilde(folder, environment: console.environment))
            if let removed = try store.forgetRoot(path: path) {
                console.print("forgot \(path): \(removed.documents) documents, \(removed.chunks) chunks")
            } else {
                console.log("Error: index \(store.path) has no folder \(path) — trove status lists its folders")
                status = ExitCode.failure
            }
        }
        return status
    }
}

/// `trove vacuum`: compacts the index file.
struct VacuumCommand: Command {
    static let name = "vacuum"
    static let abstract = "Compact the index file after large deletions (forget, removed files)."
    static let usage = "trove vacuum [options]"
    static let discussion = """
        Rewrites the index without its free pages and folds the write-ahead log into it. Searches may run
        meanwhile; an index run must not.
        """
    static let optionGroups = [OptionGroup("Options", CommonOptions.options)]

    var common: CommonOptions

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        try arguments.noOperands()
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, environment: console.environment)
        let store = try IndexStore(path: settings.indexPath, createIfMissing: false)
        let before = store.bytesOnDisk
        try store.vacuum()
        let after = store.bytesOnDisk
        console.print(
            "vacuumed \(store.path): \(SkippedFile.formatSize(before)) → \(SkippedFile.formatSize(after))")
        return ExitCode.success
    }
}
