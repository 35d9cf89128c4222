import TroveKit
import TroveMCP

/// What the servers of `trove mcp`'s tools share (`trove mcp` on stdio, `trove web` over HTTP): the common options,
/// the chat model and server `ask` uses, and `--watch` with its crawl options, declared and read once.
struct ToolServerOptions {
    /// `--watch`, worded for a server whose stdout may be a protocol.
    static let watch = Option(
        "--watch", help: "also keep the index current as files change, as trove watch does (its log on stderr)")

    var common: CommonOptions
    var chatModelFlag: String?
    var watch: Bool
    var indexing: IndexingOptions
    var chatServer: ChatServerFlags

    /// Reads them, with `chatModel` the command's own `--chat-model` declaration.
    init(parsing arguments: inout Arguments, chatModel: Option) throws {
        common = try CommonOptions(parsing: &arguments)
        chatModelFlag = arguments.value(chatModel)
        chatServer = ChatOptionsParser.parseServer(&arguments)
        watch = arguments.flag(Self.watch)
        indexing = try IndexingOptions(watching: &arguments, watch: watch)
    }

    /// The settings they resolve to, with the chat server checked.
    func settings(_ console: Console) throws -> Settings {
        var settings = try Settings(common, environment: console.environment)
        settings.chatFlags = chatServer
        try settings.checkChatServer()
        return settings
    }

    /// What the tools need: the index's configuration and the chat model `ask` uses.
    func toolSettings(_ settings: Settings) throws -> MCPTools.Settings {
        MCPTools.Settings(
            configuration: try settings.configuration, chatModel: settings.chatModel(flag: chatModelFlag),
            chatModelChosen: settings.chatModelChosen(flag: chatModelFlag))
    }
}
