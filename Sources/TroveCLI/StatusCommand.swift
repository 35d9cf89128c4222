import Foundation
import TroveKit

/// `trove status`: what the index holds.
struct StatusCommand: Command {
    static let name = "status"
    static let abstract = "Show what is indexed: folders, documents, chunks, model, dimension, size on disk."
    static let usage = "trove status [options]"
    static let optionGroups = [OptionGroup("Options", [json] + CommonOptions.options)]

    static let json = Option("--json", help: "print the status as JSON")

    var common: CommonOptions
    var json: Bool

    init(parsing arguments: inout Arguments) throws {
        common = try CommonOptions(parsing: &arguments)
        json = arguments.flag(Self.json)
        try arguments.noOperands()
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try Settings(common, environment: console.environment)
        let status = StatusOutput(try await settings.openIndex().status())
        if json {
            console.print(try JSONOutput.encode(status))
            return ExitCode.success
        }
        console.print("index      \(status.index) (\(ByteCount.format(status.bytesOnDisk)))")
        if let model = status.model {
            let digest = status.modelDigest.map { ", digest \($0.prefix(12))" } ?? ""
            console.print("model      \(model) (\(status.embedder ?? "?"), \(status.dimension ?? 0) dimensions\(digest))")
            console.print("chunker    v\(status.chunkerVersion ?? 0) \(status.chunkerParameters ?? "")")
        } else {
            console.print("model      none yet")
        }
        console.print("documents  \(status.documents)")
        console.print("chunks     \(status.chunks)")
        console.print("folders    \(status.roots.count)")
        for root in status.roots { console.print("  \(root.path)  (\(root.documents) documents)") }
        return ExitCode.success
    }
}

/// The `--json` shape of `trove status`.
struct StatusOutput: Encodable {
    struct Root: Encodable {
        var path: String
        var documents: Int
    }

    var index: String
    var bytesOnDisk: Int64
    var embedder: String?
    var model: String?
    var modelDigest: String?
    var dimension: Int?
    var chunkerVersion: Int?
    var chunkerParameters: String?
    var documents: Int
    var chunks: Int
    var roots: [Root]

    init(_ status: IndexStatus) {
        index = status.location
        bytesOnDisk = status.bytesOnDisk
        embedder = status.embedder
        model = status.model
        modelDigest = status.modelDigest
        dimension = status.dimension
        chunkerVersion = status.chunkerVersion
        chunkerParameters = status.chunkerParameters
        documents = status.documents
        chunks = status.chunks
        roots = status.folders.map { Root(path: $0.path, documents: $0.documents) }
    }

    enum CodingKeys: String, CodingKey {
        case index, embedder, model, dimension, documents, chunks, roots
        case bytesOnDisk = "bytes_on_disk"
        case modelDigest = "model_digest"
        case chunkerVersion = "chunker_version"
        case chunkerParameters = "chunker_parameters"
    }
}

/// Human sizes: 512 B, 1.2 MB.
enum ByteCount {
    static func format(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}
