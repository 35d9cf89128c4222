import Foundation
import Synchronization
import TroveKit
import TroveOutput
import TroveSystem

/// The tools and resources `trove mcp` offers, all read-only, all through `TroveIndex`. A tool that fails (no
/// index, Ollama down, an unknown path, a bad filter) returns `isError: true` with the one-line message the CLI
/// prints; only a call the protocol itself rejects (an unknown tool) is a JSON-RPC error.
package final class MCPTools: Sendable {
    /// What opening the index needs, and what `ask` uses when the agent does not say.
    package struct Settings: Sendable {
        package var configuration: TroveConfiguration
        /// The chat model `ask` uses (the CLI's `--chat-model`, `TROVE_CHAT_MODEL`, config, else `llama3.2`).
        package var chatModel: String
        /// The user named the chat model: if it cannot be used, `ask` fails instead of answering extractively.
        package var chatModelChosen: Bool

        package init(configuration: TroveConfiguration, chatModel: String, chatModelChosen: Bool) {
            self.configuration = configuration
            self.chatModel = chatModel
            self.chatModelChosen = chatModelChosen
        }
    }

    let settings: Settings
    /// The index once opened: the vectors and the embedder stay loaded for every later call.
    private let opened = Mutex<TroveIndex?>(nil)
    /// `warmUp` was asked for: an index that only appears later (the server started before the first `trove index`)
    /// is warmed when a call opens it, so its searches scan as a warm process's do.
    private let warm = Atomic<Bool>(false)

    package init(_ settings: Settings) { self.settings = settings }

    /// The open index; opening is retried on each call until it succeeds (the index may be created meanwhile).
    package func index() throws -> TroveIndex {
        try opened.withLock { index in
            if let index { return index }
            let fresh = try TroveIndex(opening: settings.configuration)
            index = fresh
            if warm.load(ordering: .acquiring) { Task { try? await fresh.warmUp() } }
            return fresh
        }
    }

    /// Loads the vectors (and a built-in model) before the first call, when there is an index, or when a later call
    /// opens one; a problem is left for the calls to report.
    package func warmUp() async {
        warm.store(true, ordering: .releasing)
        try? await index().warmUp()
    }

    /// Runs tool `name`. Unknown tools are a protocol error; everything else the tool's own result.
    func call(_ name: String, arguments: JSON) async throws -> JSON {
        guard Self.argumentNames[name] != nil else {
            throw ProtocolError.invalidParams("unknown tool '\(name)' — tools/list names search, get, ask, status")
        }
        do {
            let structured = try await structured(name, arguments: arguments)
            try Task.checkCancellation()
            return [
                "content": [["type": "text", "text": .string(String(decoding: structured.encoded(), as: UTF8.self))]],
                "structuredContent": structured, "isError": false,
            ]
        } catch {
            return ["content": [["type": "text", "text": .string(String(describing: error))]], "isError": true]
        }
    }

    /// Tool `name`'s structured result for `arguments`, or the error a failed call reports (`trove web`'s API calls
    /// the tools through this, so its JSON is the tools' own).
    package func structured(_ name: String, arguments: JSON) async throws -> JSON {
        switch name {
        case "search": try await search(arguments)
        case "get": try await get(arguments)
        case "ask": try await ask(arguments)
        case "status": try await status()
        default: throw ToolError("unknown tool '\(name)' — the tools are search, get, ask, status")
        }
    }

    // MARK: search

    private func search(_ arguments: JSON) async throws -> JSON {
        let input = try Arguments(arguments, tool: "search")
        var request = SearchRequest(query: try input.requiredString("query"))
        if let mode = try input.string("mode") {
            guard let parsed = SearchMode(rawValue: mode) else {
                throw ToolError("mode must be hybrid, vector or keyword, got '\(mode)'")
            }
            request.mode = parsed
        }
        request.limit = try input.integer("limit", in: 1...100) ?? 10
        request.groupByDocument = !(try input.bool("all_chunks") ?? false)
        if let score = try input.number("min_score", in: -1...1) {
            guard request.mode != .keyword else {
                throw ToolError("min_score is a cosine similarity: use it with mode hybrid or vector")
            }
            request.minScore = Float(score)
        }
        request.filter.pathGlobs = try input.strings("path")
        request.filter.extensions = try input.strings("ext")
        request.filter.roots = try input.strings("root")
        for (key, keyPath) in [("since", \SearchFilter.modifiedSince), ("before", \SearchFilter.modifiedBefore)] {
            guard let text = try input.string(key) else { continue }
            guard let time = SearchFilter.parseTime(text) else {
                throw ToolError(
                    "\(key) expects a date like 2024-05-01 or 2024-05-01T09:30, or an age like 7d, got '\(text)'")
            }
            request.filter[keyPath: keyPath] = time
        }
        let index = try index()
        let hits = try await index.search(request)
        return [
            "query": .string(request.query), "mode": .string(request.mode.rawValue),
            "model": .string(try await index.embeddingModel() ?? ""), "hits": .array(hits.map(Self.hit)),
        ]
    }

    static func hit(_ hit: SearchHit) -> JSON {
        var object: [String: JSON] = [
            "rank": .integer(Int64(hit.rank)), "path": .string(hit.path), "start_line": .integer(Int64(hit.startLine)),
            "end_line": .integer(Int64(hit.endLine)), "heading": .string(hit.heading),
            "score": shortest(hit.score), "text": .string(hit.text), "uri": .string(hit.uri),
        ]
        if let locator = hit.locator { object["locator"] = LocatorOutput.json(locator) }
        if let score = hit.vectorScore { object["vector_score"] = shortest(score) }
        if let score = hit.keywordScore { object["keyword_score"] = .number(score) }
        if let score = hit.fusedScore { object["fused_score"] = .number(score) }
        return .object(object)
    }

    // MARK: get

    private func get(_ arguments: JSON) async throws -> JSON {
        let input = try Arguments(arguments, tool: "get")
        let path = try input.requiredString("path")
        let start = try input.integer("start_line", in: 1...Int.max)
        let end = try input.integer("end_line", in: 1...Int.max)
        if let start, let end, end < start {
            throw ToolError("end_line \(end) is before start_line \(start)")
        }
        let range: ClosedRange<Int>? = start == nil && end == nil ? nil : (start ?? 1)...(end ?? Int.max)
        let document = try await index().text(path: path, lines: range)
        return [
            "path": .string(document.path), "line_count": .integer(Int64(document.lineCount)),
            "start_line": .integer(Int64(document.lines.first?.number ?? 0)),
            "end_line": .integer(Int64(document.lines.last?.number ?? 0)),
            "lines": .array(document.lines.map { ["number": .integer(Int64($0.number)), "text": .string($0.text)] }),
            "text": .string(document.text),
        ]
    }

    // MARK: ask

    private func ask(_ arguments: JSON) async throws -> JSON {
        let input = try Arguments(arguments, tool: "ask")
        var options = AskOptions(chatModel: try input.string("chat_model") ?? settings.chatModel)
        if let limit = try input.integer("limit", in: 1...50) { options.limit = limit }
        var request = AskRequest(question: try input.requiredString("question"), options: options)
        request.chatModelChosen = settings.chatModelChosen || input.has("chat_model")
        request.extractive = try input.bool("extractive") ?? false
        let outcome = try await index().ask(request)
        try Task.checkCancellation()
        return Self.result(of: outcome)
    }

    /// What `ask` returns for an outcome (`trove web` ends a streamed answer with it too).
    package static func result(of outcome: AskOutcome) -> JSON {
        switch outcome {
        case .answered(let answer):
            let object: [String: JSON] = [
                "mode": "generated", "answer": .string(answer.text), "model": .string(answer.model),
                "provider": .string(answer.provider.rawValue),
                "sources": .array(answer.citedSources.map { Self.source($0.hit, number: $0.number) }),
                "not_cited": .array(answer.uncitedSources.map { Self.source($0.hit, number: $0.number) }),
                "truncated": .bool(answer.truncated),
            ]
            return .object(object.merging(Self.answerNotes(answer)) { $1 })
        case .extractive(let answer):
            let text = answer.passages.map { passage in
                "[\(passage.source.number)] \(passage.source.hit.path):\(passage.source.hit.startLine)-"
                    + "\(passage.source.hit.endLine)\n" + passage.lines.map { "> " + $0 }.joined(separator: "\n")
            }.joined(separator: "\n\n")
            return [
                "mode": "extractive", "answer": .string(text), "reason": .string(answer.reason),
                "sources": .array(answer.passages.map { Self.source($0.source.hit, number: $0.source.number) }),
            ]
        case .uncovered(let retrieval):
            return [
                "mode": "uncovered",
                "answer": .string("the indexed documents don't cover this question; the nearest passages are listed"),
                "sources": .array(retrieval.hits.prefix(3).enumerated().map { Self.source($1, number: $0 + 1) }),
            ]
        }
    }

    /// What makes an answer less complete: truncation that could not be checked, a server that failed mid-answer.
    static func answerNotes(_ answer: Answer) -> [String: JSON] {
        var notes: [String: JSON] = [:]
        if case .unknown(let reason) = answer.truncation { notes["truncation_check"] = .string("not possible: " + reason) }
        if let failure = answer.failure { notes["error"] = .string(failure.message) }
        if let reason = answer.doneReason { notes["done_reason"] = .string(reason) }
        return notes
    }

    /// A Float as the shortest decimal that reads back as it (0.97, not 0.9722222089767456).
    static func shortest(_ value: Float) -> JSON { .number(Double(value.description) ?? Double(value)) }

    /// A numbered source, with its locator for a passage of a PDF, DOCX, … (as `ask --json` writes it).
    static func source(_ hit: SearchHit, number: Int) -> JSON {
        var object: [String: JSON] = [
            "number": .integer(Int64(number)), "path": .string(hit.path), "start_line": .integer(Int64(hit.startLine)),
            "end_line": .integer(Int64(hit.endLine)), "heading": .string(hit.heading),
        ]
        if let locator = hit.locator { object["locator"] = LocatorOutput.json(locator) }
        return .object(object)
    }

    // MARK: status

    private func status() async throws -> JSON {
        let index = try index()
        let status = try await index.status()
        let freshness = Dictionary(try await index.freshness().map { ($0.path, $0) }) { $1 }
        var object: [String: JSON] = [
            "index": .string(status.location), "documents": .integer(Int64(status.documents)),
            "chunks": .integer(Int64(status.chunks)), "bytes_on_disk": .integer(status.bytesOnDisk),
            "folders": .array(
                status.folders.map { folder in
                    var entry: [String: JSON] = [
                        "path": .string(folder.path), "documents": .integer(Int64(folder.documents)),
                    ]
                    if let fresh = freshness[folder.path] { entry.merge(Self.freshness(fresh)) { $1 } }
                    return .object(entry)
                }),
        ]
        if let model = status.model { object["model"] = .string(model) }
        if let provider = status.provider { object["embedder"] = .string(provider.rawValue) }
        if let dimension = status.dimension { object["dimension"] = .integer(Int64(dimension)) }
        if let last = status.lastIndexed {
            object["last_indexed"] = .string(
                ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(last))))
        }
        return .object(object)
    }

    /// A folder's freshness as `trove status --json` gives it: so an agent can tell the index is behind the disk.
    static func freshness(_ folder: FolderFreshness) -> [String: JSON] {
        var entry: [String: JSON] = [
            "new": .integer(Int64(folder.new)), "changed": .integer(Int64(folder.changed)),
            "gone": folder.gone.map { .integer(Int64($0)) } ?? .null, "partial": .bool(folder.partial),
            "current": .bool(folder.isCurrent), "interrupted": .bool(folder.interrupted),
            "files_left": .integer(Int64(folder.filesLeft)),
            "last_run": folder.lastRun.map {
                .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval($0))))
            } ?? .null,
        ]
        if let problem = folder.problem { entry["problem"] = .string(problem) }
        return entry
    }

    // MARK: resources

    /// Documents per `resources/list` page.
    static let pageSize = 500

    func listResources(cursor: String?) async throws -> JSON {
        let start: Int
        if let cursor {
            guard let offset = Int(cursor), offset >= 0 else {
                throw ProtocolError.invalidParams("cursor '\(cursor)' is not one this server gave")
            }
            start = offset
        } else {
            start = 0
        }
        let documents = try await documentList()
        let page = documents.dropFirst(start).prefix(Self.pageSize)
        var result: [String: JSON] = [
            "resources": .array(
                page.map { document in
                    [
                        "uri": .string(Self.uri(document.path)), "name": .string(document.relativePath),
                        "title": .string(document.path), "mimeType": .string(Self.mimeType(document.path)),
                    ]
                })
        ]
        if start + page.count < documents.count { result["nextCursor"] = .string(String(start + page.count)) }
        return .object(result)
    }

    func readResource(_ uri: String) async throws -> JSON {
        guard let path = Self.path(ofURI: uri) else {
            throw ProtocolError(code: -32002, message: "resource not found: \(uri) — resources/list gives file:// URIs")
        }
        let document: DocumentText
        do {
            document = try await index().text(path: path)
        } catch {
            throw ProtocolError(code: -32002, message: "resource not found: \(uri) — \(error)")
        }
        return [
            "contents": [
                ["uri": .string(uri), "mimeType": .string(Self.mimeType(path)), "text": .string(document.text)]
            ]
        ]
    }

    private func documentList() async throws -> [IndexedDocument] {
        do {
            return try await index().documents()
        } catch {
            // Without an index there is nothing to list; the tools say why.
            return []
        }
    }

    /// `file://` and the percent-encoded absolute path.
    static func uri(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#;")
        return "file://" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)
    }

    static func path(ofURI uri: String) -> String? {
        guard uri.hasPrefix("file:///") else { return nil }
        return String(uri.dropFirst("file://".count)).removingPercentEncoding
    }

    static func mimeType(_ path: String) -> String {
        path.hasSuffix(".md") || path.hasSuffix(".markdown") ? "text/markdown" : "text/plain"
    }
}

/// A tool's arguments, checked against what its schema allows: an unknown key or a wrong type is the agent's
/// mistake, reported as a tool error it can correct.
struct Arguments {
    let values: [String: JSON]
    let tool: String

    init(_ arguments: JSON, tool: String) throws {
        values = arguments.objectValue ?? [:]
        self.tool = tool
        let known = MCPTools.argumentNames[tool] ?? []
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw ToolError("\(tool) has no argument '\(unknown)' — it takes \(known.joined(separator: ", "))")
        }
    }

    func has(_ key: String) -> Bool { values[key] != nil && values[key] != .null }

    func string(_ key: String) throws -> String? {
        guard has(key) else { return nil }
        guard let text = values[key]?.stringValue else { throw ToolError("\(key) must be a string") }
        return text
    }

    func requiredString(_ key: String) throws -> String {
        guard let text = try string(key)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw ToolError("\(tool) needs a non-empty \(key)")
        }
        return text
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard has(key) else { return nil }
        guard let value = values[key]?.integerValue, value >= range.lowerBound, value <= range.upperBound else {
            let bounds =
                range.upperBound == Int.max
                ? "of at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
            throw ToolError("\(key) must be a whole number \(bounds)")
        }
        return Int(value)
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard has(key) else { return nil }
        guard let value = values[key]?.doubleValue, range.contains(value) else {
            throw ToolError("\(key) must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func bool(_ key: String) throws -> Bool? {
        guard has(key) else { return nil }
        guard let value = values[key]?.boolValue else { throw ToolError("\(key) must be true or false") }
        return value
    }

    /// A list of strings; one string is taken as a list of one.
    func strings(_ key: String) throws -> [String] {
        guard has(key) else { return [] }
        if let one = values[key]?.stringValue { return [one] }
        guard let list = values[key]?.arrayValue, let texts = Optional(list.compactMap(\.stringValue)),
            texts.count == list.count
        else { throw ToolError("\(key) must be a list of strings") }
        return texts
    }
}

/// A tool's arguments are wrong: the message says how to call it.
struct ToolError: TroveError {
    var message: String
    init(_ message: String) { self.message = message }

    /// Who is at fault: the tool call.
    var fault: Fault { .usage }
}
