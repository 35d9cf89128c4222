import Foundation
import TroveKit

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
        let index = try settings.openIndex()
        var status = ExitCode.success
        for folder in folders {
            let named = IndexLocation.expandingTilde(folder, environment: console.environment)
            if let removed = try await index.forget(folder: named) {
                console.print("forgot \(removed.folder): \(removed.documents) documents, \(removed.chunks) chunks")
            } else {
                console.log(
                    "Error: index \(index.location) has no folder \(TroveIndex.folderPath(named)) — trove status lists its folders")
                status = ExitCode.failure
            }
        }
        return status
    }
}
