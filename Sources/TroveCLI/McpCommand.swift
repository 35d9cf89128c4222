import Foundation
import TroveKit
import TroveMCP

/// `trove mcp`: the index as a Model Context Protocol server on stdin/stdout, for coding agents and editors.
struct McpCommand: Command {
    static let name = "mcp"
    static let abstract = "Serve the index to AI agents and editors over the Model Context Protocol (stdio)."
    static let usage = "trove mcp [options]"
    static let discussion = """
        Speaks MCP (JSON-RPC 2.0, one message per line) on stdin and stdout until stdin closes; logs go to
        stderr. An agent starts it itself: `claude mcp add trove -- trove mcp`, or an mcp.json entry with
        "command": "trove", "args": ["mcp"] (see README, Use with agents). Protocol revisions 2025-11-25,
        2025-06-18, 2025-03-26 and 2024-11-05.

        Tools (all read-only: nothing is indexed, changed or deleted through them):
          search      passages by meaning and keywords: query, limit, mode, all_chunks, min_score and the
                      filters path, ext, since, before, root; hits carry path, lines, heading, scores, text
          get         a document or a line range of it, with line numbers (indexed folders only)
          ask         an answer with cited sources from a chat model; extractive without one
          status      folders, counts, model, last indexed time
        Resources: every indexed document, as a file:// URI that resources/read returns.

        The vectors and the embedding model are loaded once; a change made by `trove index` meanwhile is
        noticed before the next call. Requests run concurrently (at most 64 at once);
        notifications/cancelled stops one.
        """
    static let optionGroups = [
        OptionGroup("Options", [chatModel] + ChatOptionsParser.server + [ToolServerOptions.watch] + CommonOptions.options),
        OptionGroup("Watch options (with --watch, as in trove watch)", IndexingOptions.watching),
    ]
    static let epilogue = """
        Examples:
          claude mcp add trove -- trove mcp
          claude mcp add trove-work -- trove mcp --index ~/work.sqlite
        """

    static let chatModel = Option(
        "--chat-model", value: "NAME", help: "chat model for the ask tool", default: "$TROVE_CHAT_MODEL, else llama3.2")

    var options: ToolServerOptions

    init(parsing arguments: inout Arguments) throws {
        options = try ToolServerOptions(parsing: &arguments, chatModel: Self.chatModel)
        try arguments.noOperands()
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try options.settings(console)
        let tools = MCPTools(try options.toolSettings(settings))
        console.log("trove mcp: serving \(settings.location) on stdin/stdout")
        // Loading meanwhile: `initialize` is answered at once, and a first search waits only for what is left.
        Task { await tools.warmUp() }
        if options.watch { try await WatchLog.background(settings.openIndex(), options.indexing, console: console) }
        await MCPServer.serveStandardIO(tools: tools, version: Launcher.version) { console.log($0) }
        return ExitCode.success
    }
}
