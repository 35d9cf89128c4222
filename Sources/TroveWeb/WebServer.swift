import Foundation
import TroveKit
import TroveMCP
import TroveSystem

/// `trove web`: the page, the HTTP API it uses (search, documents, ask as Server-Sent Events, sessions, status,
/// models) and MCP over Streamable HTTP at `/mcp`, all on one loopback port, all through `TroveIndex` (the API's
/// search, get and status are `trove mcp`'s tools, so the JSON is theirs). Every request must name this server as its
/// Host and come from its own origin; every API call carries the token minted at this start.
package final class WebServer: Sendable {
    /// How to serve.
    package struct Settings: Sendable {
        /// The index, and the chat model `ask` uses when the page does not choose one.
        package var tools: MCPTools.Settings
        /// The address to listen on, IPv4 or IPv6: loopback unless the user said otherwise.
        package var address = "127.0.0.1"
        /// The port; 0 takes any free one.
        package var port: UInt16 = 0
        /// This build's version, for MCP's `serverInfo`.
        package var version = "dev"
        /// The token; nil mints a fresh one (tests choose theirs).
        package var token: String?
        package var limits = HTTPServer.Limits()

        /// Settings for the index `tools` opens.
        package init(tools: MCPTools.Settings) { self.tools = tools }
    }

    package let settings: Settings
    let tools: MCPTools
    let access: Access
    let mcp: MCPServer
    /// What a `--watch` beside the server is doing, for the status.
    package let progress = WatchProgress()
    private let http: HTTPServer

    /// Starts listening; the index is opened by the first call that needs it (or `warmUp`).
    package init(_ settings: Settings, log: @escaping @Sendable (String) -> Void) throws {
        self.settings = settings
        let tools = MCPTools(settings.tools)
        self.tools = tools
        mcp = MCPServer(tools: tools, version: settings.version, send: { _ in }, log: log)
        let token = settings.token ?? Access.mintToken()
        // The handler needs `self`, which exists only once every stored property is set: it goes through a box.
        let router = Router()
        http = try HTTPServer(address: settings.address, port: settings.port, limits: settings.limits) { request in
            router.server?.handle(request) ?? WebResponses.error(503, "the server is starting — try again")
        }
        access = Access(token: token, address: settings.address, port: http.port)
        router.server = self
    }

    /// The port listened on.
    package var port: UInt16 { http.port }
    /// The token API calls carry.
    package var token: String { access.token }
    /// The page's address with the token, as printed: the token rides in the fragment, which a browser never sends.
    package var url: String { "http://\(Listener.hostName(settings.address)):\(port)/#token=\(token)" }

    /// Loads the vectors (and a built-in model) before the first search, when there is an index.
    package func warmUp() async { await tools.warmUp() }

    /// Stops listening and closes every connection.
    package func stop() { http.stop() }

    /// Answers one request, on its connection's thread.
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let api = request.path.hasPrefix("/api/") || request.path == "/mcp"
        if let refusal = access.refusal(request, api: api) { return refusal }
        if request.path == "/mcp" { return Self.blocking { await self.serveMCP(request) } }
        if api { return Self.blocking { await self.serveAPI(request) } }
        guard request.method == "GET" || request.method == "HEAD" else {
            return WebResponses.error(405, "\(request.method) \(request.path) is not served — the page is GET /")
        }
        switch request.path {
        case "/", "/index.html": return WebResponses.asset(Page.html, type: "text/html; charset=utf-8")
        case "/app.js": return WebResponses.asset(Page.script, type: "text/javascript; charset=utf-8")
        case "/app.css": return WebResponses.asset(Page.style, type: "text/css; charset=utf-8")
        case "/favicon.svg", "/favicon.ico": return WebResponses.asset(Page.icon, type: "image/svg+xml")
        default: return WebResponses.error(404, "no page at \(request.path) — the app is at /")
        }
    }

    /// The API's routes.
    private func serveAPI(_ request: HTTPRequest) async -> HTTPResponse {
        let route = request.path.dropFirst("/api/".count).split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0).removingPercentEncoding ?? String($0) }
        do {
            switch (request.method, route.first ?? "", route.count) {
            case ("GET", "search", 1): return WebResponses.json(try await search(request))
            case ("GET", "document", 1): return WebResponses.json(try await document(request))
            case ("GET", "status", 1): return WebResponses.json(try await status())
            case ("GET", "models", 1): return WebResponses.json(await models())
            case ("POST", "ask", 1): return try await ask(request)
            case (_, "sessions", _): return try await sessions(request, route: Array(route.dropFirst()))
            default:
                return WebResponses.error(
                    404, "no API at \(request.method) \(request.path) — see GUIDE.md, trove web")
            }
        } catch {
            return Self.failure(error)
        }
    }

    /// The status and `{"error"}` of a failed call: the request's fault is 400, a document outside the index 404, a
    /// model server that is down 503, anything else 500.
    static func failure(_ error: any Error) -> HTTPResponse {
        let status =
            switch Fault(error) {
            case .usage: 400
            case .unavailable: 503
            case .interrupted: 499
            case .failure: error is DocumentError ? 404 : 500
            }
        return WebResponses.error(status, String(describing: error))
    }

    /// Waits on this (libmicrohttpd's) thread for `work`, which runs as a task.
    static func blocking(_ work: @escaping @Sendable () async -> HTTPResponse) -> HTTPResponse {
        final class Result: @unchecked Sendable {  // written before `done` is signalled, read after
            var response: HTTPResponse?
        }
        let result = Result()
        let done = DispatchSemaphore(value: 0)
        Task {
            result.response = await work()
            done.signal()
        }
        done.wait()
        return result.response!
    }
}

/// Lets the HTTP handler reach the server made after it.
private final class Router: @unchecked Sendable {  // set once, before the first request can be served
    weak var server: WebServer?
}
