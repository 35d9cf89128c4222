import Foundation
import TroveKit
import TroveSystem

/// The API's reads: search, a document, the status and the chat models. Search, document and status are
/// `trove mcp`'s tools, so their arguments, checks, errors and JSON are the tools' own.
extension WebServer {
    /// `GET /api/search?query=…&mode=…&limit=…&path=…&ext=…&since=…&before=…&root=…`: the `search` tool's
    /// result, each hit with the `snippet` lines a person reads, and the query's `terms` to mark in them.
    func search(_ request: HTTPRequest) async throws -> JSON {
        let arguments = QueryArguments.json(request.query, lists: ["path", "ext", "root"])
        guard case .object(var result) = try await tools.structured("search", arguments: arguments) else {
            return [:]
        }
        let query = result["query"]?.stringValue ?? ""
        result["terms"] = .array(Snippet.words(query).map(JSON.string))
        result["hits"] = .array(
            (result["hits"]?.arrayValue ?? []).map { hit in
                guard case .object(var object) = hit else { return hit }
                let lines = Snippet.lines(of: object["text"]?.stringValue ?? "", query: query, count: 3)
                object["snippet"] = .array(lines.map(JSON.string))
                return .object(object)
            })
        return .object(result)
    }

    /// `GET /api/document?path=…&start_line=…&end_line=…`: the `get` tool's result (indexed documents only).
    func document(_ request: HTTPRequest) async throws -> JSON {
        try await tools.structured("get", arguments: QueryArguments.json(request.query, lists: []))
    }

    /// `GET /api/status`: the `status` tool's result, with `watch` (indexing now, files done, the last pass) while
    /// a `--watch` runs, and the chat model `ask` uses by default.
    func status() async throws -> JSON {
        guard case .object(var result) = try await tools.structured("status", arguments: [:]) else { return [:] }
        if let watch = progress.json { result["watch"] = watch }
        result["chat_model"] = .string(settings.tools.chatModel)
        result["chat_provider"] = .string(settings.tools.configuration.chatProvider.rawValue)
        return .object(result)
    }

    /// `GET /api/models`: each chat server's models (`providers`: Ollama, and the OpenAI-compatible chat server when
    /// one is named), each `{"provider", "models"}`, or `{"provider", "error"}` for a server that cannot be asked;
    /// and the provider and model `ask` uses when the request names none (`chat_provider`, `chat_model`).
    func models() async -> JSON {
        let configuration = settings.tools.configuration
        var defaultModel = settings.tools.chatModel
        var providers: [JSON] = []
        for provider in configuration.chatProviders {
            do {
                let listing = try await configuration.chatModels(of: provider)
                // No model named for an OpenAI-compatible server: its first, as ask itself would take.
                if provider == configuration.chatProvider, defaultModel.isEmpty {
                    defaultModel = listing.models.first ?? ""
                }
                providers.append(
                    ["provider": .string(provider.rawValue), "models": .array(listing.models.map(JSON.string))])
            } catch {
                providers.append(["provider": .string(provider.rawValue), "error": .string(String(describing: error))])
            }
        }
        return [
            "chat_provider": .string(configuration.chatProvider.rawValue), "chat_model": .string(defaultModel),
            "providers": .array(providers),
        ]
    }
}
