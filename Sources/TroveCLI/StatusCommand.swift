import Foundation
import TroveKit
import TroveOutput

/// `trove status`: what the index holds.
struct StatusCommand: Command {
    static let name = "status"
    static let abstract =
        "Show what is indexed: folders, documents, chunks, model, dimension, size on disk, and what changed on disk "
        + "since the last run."
    static let discussion = """
        For each folder it walks the disk with trove index's crawl and ignore rules, comparing sizes and modification
        times only (no file is read), and reports how many files are new, changed or gone since the last run, and
        when that run ended. On a huge tree the walk stops after 2 seconds and the counts read "at least N". A run
        that stopped early (Ctrl-C, the model server gone) is shown until a complete run.
        """
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
        let index = try settings.openIndex()
        let status = StatusOutput(try await index.status(), freshness: try await index.freshness())
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
        for root in status.roots {
            console.print("  \(root.path)  (\(root.documents) documents)")
            for line in root.freshnessLines { console.print("    " + line) }
        }
        return ExitCode.success
    }
}

/// The `--json` shape of `trove status`.
struct StatusOutput: Encodable {
    struct Root: Encodable {
        var path: String
        var documents: Int
        /// Files on disk not in the index, changed, and gone since the last run; `partial`: the walk stopped at its
        /// time budget, so `new` and `changed` are lower bounds and `gone` is unknown (null).
        var new: Int
        var changed: Int
        var gone: Int?
        var partial: Bool
        var current: Bool
        var problem: String?
        /// When the last run over the folder ended (ISO 8601), and whether it stopped early with files left.
        var lastRun: String?
        var interrupted: Bool
        var filesLeft: Int
        /// The same in seconds since 1970, for the text.
        var lastRunSeconds: Int64?

        enum CodingKeys: String, CodingKey {
            case path, documents, new, changed, gone, partial, current, problem, interrupted
            case lastRun = "last_run"
            case filesLeft = "files_left"
        }

        init(path: String, documents: Int, freshness: FolderFreshness?) {
            self.path = path
            self.documents = documents
            let freshness = freshness ?? FolderFreshness(path: path)
            new = freshness.new
            changed = freshness.changed
            gone = freshness.gone
            partial = freshness.partial
            current = freshness.isCurrent
            problem = freshness.problem
            lastRunSeconds = freshness.lastRun
            lastRun = freshness.lastRun.map {
                ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval($0)))
            }
            interrupted = freshness.interrupted
            filesLeft = freshness.filesLeft
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(documents, forKey: .documents)
            try container.encode(new, forKey: .new)
            try container.encode(changed, forKey: .changed)
            try container.encode(gone, forKey: .gone)
            try container.encode(partial, forKey: .partial)
            try container.encode(current, forKey: .current)
            try container.encodeIfPresent(problem, forKey: .problem)
            try container.encode(lastRun, forKey: .lastRun)
            try container.encode(interrupted, forKey: .interrupted)
            try container.encode(filesLeft, forKey: .filesLeft)
        }

        /// What `status` prints under the folder: whether the index matches the disk, and what to run when not.
        var freshnessLines: [String] {
            let when = lastRunSeconds.map { "last run " + Self.localTime($0) } ?? "no run recorded yet"
            let since = lastRunSeconds.map { "since the last run (\(Self.localTime($0)))" } ?? "against the index"
            var lines: [String] = []
            if let problem {
                lines.append("cannot check it: \(problem) — run: trove forget \(path), or restore the folder")
            } else if current {
                lines.append("up to date with the disk (\(when))")
            } else {
                let bound = partial ? "at least " : ""
                let gone = self.gone.map { "\($0) gone" } ?? "gone not counted"
                let walked = partial ? " (the walk stopped after 2 s)" : ""
                lines.append(
                    "\(bound)\(new) new, \(bound)\(changed) changed, \(gone) \(since)\(walked) — run: trove index")
            }
            if interrupted {
                let files = filesLeft == 1 ? "file" : "files"
                lines.append("last run interrupted: \(filesLeft) \(files) not indexed — run: trove index")
            }
            return lines
        }

        /// `2026-12-02 08:50` in the local time zone.
        static func localTime(_ seconds: Int64) -> String {
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
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

    init(_ status: IndexStatus, freshness: [FolderFreshness] = []) {
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
        let byPath = Dictionary(freshness.map { ($0.path, $0) }) { $1 }
        roots = status.folders.map { Root(path: $0.path, documents: $0.documents, freshness: byPath[$0.path]) }
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
