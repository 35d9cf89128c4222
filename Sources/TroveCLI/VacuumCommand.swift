import TroveKit

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
        let index = try settings.openIndex()
        let result = try await index.vacuum()
        console.print(
            "vacuumed \(index.location): \(ByteSize.format(result.bytesBefore)) → \(ByteSize.format(result.bytesAfter))")
        return ExitCode.success
    }
}
