import Foundation
import Ollama
import TroveSearch
import TroveStore
import TroveBLAS

/// The result of one `trove doctor` check.
public struct DoctorCheck: Sendable, Equatable {
    public var name: String
    public var passed: Bool
    /// What was found, e.g. `Ollama 0.5.7 at http://127.0.0.1:11434`.
    public var detail: String
    /// What to do when the check failed.
    public var fix: String?

    public init(name: String, passed: Bool, detail: String, fix: String? = nil) {
        self.name = name
        self.passed = passed
        self.detail = detail
        self.fix = fix
    }
}

/// Checks every piece `trove index` and `trove search` need, one line each.
public struct Doctor: Sendable {
    public var client: OllamaClient
    public var model: String
    /// The index checked.
    public var location: IndexLocation
    /// Who embeds: with `builtin`, the model files are checked instead of the Ollama server.
    public var provider = Provider.ollama
    /// Where the built-in model lives; nil skips its check.
    public var modelFolder: String?
    /// A chat model to check as well (`trove doctor --chat-model`), or nil.
    public var chatModel: String?
    /// Whether `chatModel` is on this Ollama (false when another provider writes answers).
    public var checksOllamaChat = true
    /// Whether a new index would get the built-in model when no Ollama answers (`trove index` with no embedder chosen
    /// and no index yet): then an unreachable Ollama is no problem, and a missing built-in model is.
    public var newIndexFallsBackToBuiltin = false
    /// The argv that starts the extraction worker, whose confinement is probed; nil skips that check.
    package var extractionWorker: [String]?
    /// The built-in model's arithmetic for indexing batches as chosen (`--precision`, `TROVE_EMBED_PRECISION`); nil:
    /// `auto`, this CPU's best.
    package var embedPrecision: EmbedPrecision?

    public init(client: OllamaClient, model: String, location: IndexLocation, chatModel: String? = nil) {
        self.client = client
        self.model = model
        self.location = location
        self.chatModel = chatModel
    }

    /// Runs the checks in order; later Ollama checks are skipped once the server is unreachable.
    public func run() async -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        checks.append(sqliteCheck())
        checks.append(blasCheck())
        checks.append(indexCheck())
        checks.append(contentsOf: extractionChecks())
        // Another provider's servers are checked by `TroveIndex.doctor`.
        let server = provider == .ollama ? await serverCheck() : nil
        let fallsBack = newIndexFallsBackToBuiltin && server?.passed == false
        if let modelFolder {
            checks.append(builtinModelCheck(folder: modelFolder, required: provider == .builtin || fallsBack))
        }
        guard var server else { return checks }
        if fallsBack {
            server = DoctorCheck(
                name: server.name, passed: true,
                detail: "no Ollama answers at \(client.baseURL.absoluteString): a new index uses the built-in model",
                fix: "to embed with Ollama instead, start it: ollama serve (or set OLLAMA_HOST / --ollama)")
        }
        checks.append(server)
        if server.passed && !fallsBack {
            checks.append(contentsOf: await modelChecks())
            if let chatModel, checksOllamaChat { checks.append(await chatModelCheck(chatModel)) }
        }
        return checks
    }

    func sqliteCheck() -> DoctorCheck {
        let version = SQLiteStore.sqliteVersion
        return SQLiteStore.sqliteHasFTS5()
            ? DoctorCheck(name: "sqlite", passed: true, detail: "SQLite \(version) with FTS5")
            : DoctorCheck(
                name: "sqlite", passed: false, detail: "SQLite \(version) lacks FTS5",
                fix: "install a SQLite built with FTS5 (Debian: apt-get install libsqlite3-0)")
    }

    /// Ranks three known vectors through BLAS and checks the order and scores a naive loop would give.
    func blasCheck() -> DoctorCheck {
        if let problem = BLAS.loadError {
            return DoctorCheck(name: "blas", passed: false, detail: problem, fix: "sudo apt-get install libopenblas0")
        }
        let dimension = 8
        var values = [Float](repeating: 0, count: 3 * dimension)
        values[0] = 1
        values[dimension + 1] = 1
        values[2 * dimension + 1] = 0.6
        values[2 * dimension + 2] = 0.8
        let matrix = VectorMatrix(dimension: dimension, rowIDs: [10, 11, 12], values: values)
        var query = [Float](repeating: 0, count: dimension)
        query[1] = 1
        let hits = VectorSearcher(matrix: matrix).search(query: query, k: 3)
        let expected = [ScoredRow(id: 11, score: 1), ScoredRow(id: 12, score: 0.6), ScoredRow(id: 10, score: 0)]
        let correct =
            hits.count == 3 && zip(hits, expected).allSatisfy { $0.id == $1.id && abs($0.score - $1.score) < 1e-6 }
        return correct
            ? DoctorCheck(name: "blas", passed: true, detail: "OpenBLAS scores vectors correctly, " + kernelNote)
            : DoctorCheck(
                name: "blas", passed: false, detail: "OpenBLAS returned wrong scores: \(hits)",
                fix: "reinstall OpenBLAS (apt-get install --reinstall libopenblas0)")
    }

    /// The kernel in use and who chose it; a forced SSE3 kernel on a CPU with AVX2 costs 2–4× in search speed.
    var kernelNote: String {
        let kernel = BLASRuntime.kernel
        let note =
            switch BLASRuntime.kernelDecision {
            case .chosen: "kernel \(kernel), chosen for this CPU (OPENBLAS_CORETYPE overrides)"
            case .userSet(let value): "kernel \(kernel), from OPENBLAS_CORETYPE=\(value)"
            case .leftToOpenBLAS: "kernel \(kernel), OpenBLAS's own choice"
            }
        let limited = CPU.limit.map { note + ", TROVE_ISA=\($0.rawValue): no wider instructions used" } ?? note
        guard BLASRuntime.isSlowKernel else { return limited }
        return limited + " — slow on this AVX2 CPU: unset OPENBLAS_CORETYPE for 2–4× faster search"
    }

    func indexCheck() -> DoctorCheck {
        let shown = location.description
        guard location.mayExist else {
            return DoctorCheck(
                name: "index", passed: true, detail: "no index yet at \(shown)",
                fix: "create it: trove index FOLDER")
        }
        do {
            let store = try location.open(createIfMissing: false)
            let stats = try store.statistics()
            guard let manifest = try store.manifest() else {
                return DoctorCheck(
                    name: "index", passed: true, detail: "\(shown) is empty", fix: "fill it: trove index FOLDER")
            }
            if manifest.model != model {
                return DoctorCheck(
                    name: "index", passed: false,
                    detail: "\(shown) was built with '\(manifest.model)', not '\(model)'",
                    fix: "run trove doctor --model \(manifest.model), or use another --index")
            }
            return DoctorCheck(
                name: "index", passed: true,
                detail: "\(shown): \(stats.documents) documents, \(stats.chunks) chunks, model \(manifest.model)")
        } catch {
            return DoctorCheck(name: "index", passed: false, detail: String(describing: error))
        }
    }

    func serverCheck() async -> DoctorCheck {
        do {
            let version = try await client.version()
            return DoctorCheck(name: Provider.ollama.rawValue, passed: true, detail: "Ollama \(version) at \(client.baseURL.absoluteString)")
        } catch {
            return DoctorCheck(
                name: Provider.ollama.rawValue, passed: false, detail: String(describing: error),
                fix: "start it with: ollama serve (or set OLLAMA_HOST / --ollama)")
        }
    }

    func modelChecks() async -> [DoctorCheck] {
        do {
            let installed = try await client.tags().map(\.name)
            guard installed.contains(model) || installed.contains(model + ":latest") else {
                return [
                    DoctorCheck(
                        name: "model", passed: false, detail: "model '\(model)' is not pulled",
                        fix: "ollama pull \(model)")
                ]
            }
            let embedder = OllamaEmbedder(client: client, model: model)
            let info = try await embedder.inspect()
            let probe = try await embedder.embed(["trove doctor"])
            let dimension = probe.first?.count ?? 0
            guard dimension == info.dimension else {
                return [
                    DoctorCheck(name: "model", passed: true, detail: "'\(model)' is pulled"),
                    DoctorCheck(
                        name: "embedding", passed: false,
                        detail: "'\(model)' returned \(dimension) dimensions: expected \(info.dimension)"),
                ]
            }
            let context = info.contextLength.map { ", context \($0) tokens" } ?? ""
            return [
                DoctorCheck(name: "model", passed: true, detail: "'\(model)' is pulled"),
                DoctorCheck(name: "embedding", passed: true, detail: "\(dimension) dimensions\(context)"),
            ]
        } catch {
            return [DoctorCheck(name: "model", passed: false, detail: String(describing: error))]
        }
    }

    /// The chat model is pulled and can chat; reports its context length, which bounds what `ask` can send.
    func chatModelCheck(_ name: String) async -> DoctorCheck {
        do {
            let details = try await client.show(model: name)
            guard details.capabilities.isEmpty || details.capabilities.contains("completion") else {
                return DoctorCheck(
                    name: "chat model", passed: false,
                    detail: "'\(name)' cannot chat (it can: \(details.capabilities.joined(separator: ", ")))",
                    fix: "choose a chat model, e.g. ollama pull llama3.2")
            }
            let context = details.contextLength.map { ", context \($0) tokens" } ?? ""
            let tools = details.capabilities.contains("tools") ? ", tools" : ""
            return DoctorCheck(
                name: "chat model", passed: true, detail: "'\(name)' is pulled and can chat\(tools)\(context)")
        } catch let error as OllamaError where error.kind == .modelMissing {
            return DoctorCheck(
                name: "chat model", passed: false, detail: "model '\(name)' is not pulled", fix: "ollama pull \(name)")
        } catch {
            return DoctorCheck(name: "chat model", passed: false, detail: String(describing: error))
        }
    }
}
