import Foundation
import TroveKit
import TroveWeb

/// `trove web`: the index in the browser (search, documents, cited and streamed chat), its HTTP API, and MCP over
/// Streamable HTTP, on one loopback port.
struct WebCommand: Command {
    static let name = "web"
    static let abstract =
        "Serve the index to your browser: search, documents and chat, with an HTTP API and MCP over HTTP."
    static let usage = "trove web [options]"
    static let discussion = """
        Serves a page, its JSON API and MCP over Streamable HTTP (at /mcp) on 127.0.0.1 (or --host ::1), on
        the port given or a free one, until Ctrl-C. It prints the page's URL on stdout: open it. The URL carries
        a token minted at each start (in the #fragment, which the browser never sends); every API and MCP call
        must present it as Authorization: Bearer TOKEN, and must name this server as its Host and come from its
        own origin (against DNS rebinding and cross-site requests). Nothing is loaded from the internet: the page
        is in the binary. Only indexed documents can be read. Requests are capped at 1 MiB and a connection
        silent for 10 s is closed; each connection has its own thread, so a slow client delays no one. Another
        address than loopback needs --allow-remote, and anyone who can reach it and has the token can read the
        index. The page offers the chat models of Ollama and, when --chat-base-url (or --chat-provider openai)
        names one, of an OpenAI-compatible server; --chat-model and --chat-provider choose the default. The API
        is described in GUIDE.md (trove web).
        """
    static let optionGroups = [
        OptionGroup(
            "Options",
            [port, host, allowRemote, chatModel] + ChatOptionsParser.server + [ToolServerOptions.watch]
                + CommonOptions.options),
        OptionGroup("Watch options (with --watch, as in trove watch)", IndexingOptions.watching),
    ]
    static let epilogue = """
        Examples:
          trove web                              # prints http://127.0.0.1:PORT/#token=…
          trove web --port 8765 --watch          # a fixed port, and re-index each edit within a second
          claude mcp add --transport http trove http://127.0.0.1:8765/mcp --header "Authorization: Bearer TOKEN"
        """

    static let port = Option(
        "--port", value: "N", .integer(min: 0, max: 65535), help: "port to listen on; 0 takes a free one", default: "0")
    static let host = Option(
        "--host", value: "ADDR", help: "address to listen on, IPv4 or IPv6 (::1); not loopback needs --allow-remote",
        default: "127.0.0.1")
    static let allowRemote = Option(
        "--allow-remote", help: "allow --host to be an address other machines can reach (the token is still needed)")
    static let chatModel = Option(
        "--chat-model", value: "NAME", help: "default chat model for asking",
        default: "$TROVE_CHAT_MODEL, else llama3.2")
    var options: ToolServerOptions
    var port: Int
    var host: String
    var allowRemote: Bool

    init(parsing arguments: inout Arguments) throws {
        options = try ToolServerOptions(parsing: &arguments, chatModel: Self.chatModel)
        port = arguments.integer(Self.port) ?? 0
        host = arguments.value(Self.host) ?? "127.0.0.1"
        allowRemote = arguments.flag(Self.allowRemote)
        try arguments.noOperands()
        if host == "localhost" { host = "127.0.0.1" }
        // As a URL writes it: [::1] is ::1.
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if !Listener.isLoopback(host), !allowRemote {
            throw UsageError(
                "--host \(host) lets other machines reach the index — add --allow-remote if that is what you want")
        }
    }

    func run(_ console: Console) async throws -> Int32 {
        let settings = try options.settings(console)
        var web = WebServer.Settings(tools: try options.toolSettings(settings))
        web.tools.configuration.chatServer = try settings.offeredChatServer()
        web.address = host
        web.port = UInt16(port)
        web.version = Launcher.version
        let server = try WebServer(web) { console.log($0) }
        defer { server.stop() }
        if !Listener.isLoopback(host) {
            console.log("warning: listening on \(host): anyone who can reach it and has the token can read the index")
        }
        console.print(server.url)
        console.log("trove web: serving \(settings.location); open the URL above; Ctrl-C stops")
        // Loading meanwhile: the page answers at once, and a first search waits only for what is left.
        Task { await server.warmUp() }
        if options.watch {
            let progress = server.progress
            try await WatchLog.background(settings.openIndex(), options.indexing, console: console) {
                progress.record($0)
            }
        }
        let stop = StopSignal()
        Interrupts.onNext { stop.stop() }
        defer { Interrupts.clear() }
        await withCheckedContinuation { continuation in stop.whenStopped { continuation.resume() } }
        console.log("stopped")
        return ExitCode.interrupted
    }
}
