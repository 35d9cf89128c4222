import Foundation
import TroveKit
import TroveOutput

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
        console.print("index      \(status.index) (\(ByteSize.format(status.bytesOnDisk)))")
        if let model = status.model {
            let digest = status.modelDigest.map { ", digest \($0.prefix(12))" } ?? ""
            console.print("model      \(model) (\(status.embedder ?? "?"), \(status.dimension ?? 0) dimensions\(digest))")
            console.print("chunker    v\(status.chunkerVersion ?? 0) \(status.chunkerParameters ?? "")")
        } else {
            console.print("model      none yet")
        }
        console.print("documents  \(status.documents)")
        console.print("chunks     \(status.chunks)")
        if let ann = status.annIndex { console.print("vectors    " + ann.described) }
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
    /// PostgreSQL's HNSW index; absent for SQLite.
    var annIndex: ANNIndex?

    /// The HNSW index: its policy, whether it is built and whether it should be.
    struct ANNIndex: Encodable {
        var kind = "hnsw"
        var policy: String
        var vectors: Int
        var threshold: Int
        var wanted: Bool
        var built: Bool

        /// One line for `status`: how searches rank now, and what to do when the index is missing.
        var described: String {
            if built { return "\(vectors), ranked through the HNSW index (hnsw=\(policy))" }
            if wanted {
                return "\(vectors), ranked exactly: the HNSW index is missing — its last build failed or was "
                    + "interrupted; run trove index to build it"
            }
            return policy == "auto"
                ? "\(vectors), ranked exactly (an HNSW index is built from \(threshold) vectors)"
                : "\(vectors), ranked exactly (hnsw=\(policy))"
        }
    }

    init(_ status: IndexStatus) {
        index = status.location
        bytesOnDisk = status.bytesOnDisk
        embedder = status.provider?.rawValue
        model = status.model
        modelDigest = status.modelDigest
        dimension = status.dimension
        chunkerVersion = status.chunkerVersion
        chunkerParameters = status.chunkerParameters
        documents = status.documents
        chunks = status.chunks
        roots = status.folders.map { Root(path: $0.path, documents: $0.documents) }
        annIndex = status.annIndex.map {
            ANNIndex(policy: $0.policy, vectors: $0.vectors, threshold: $0.threshold, wanted: $0.wanted, built: $0.built)
        }
    }

    enum CodingKeys: String, CodingKey {
        case index, embedder, model, dimension, documents, chunks, roots
        case annIndex = "ann_index"
        case bytesOnDisk = "bytes_on_disk"
        case modelDigest = "model_digest"
        case chunkerVersion = "chunker_version"
        case chunkerParameters = "chunker_parameters"
    }
}
