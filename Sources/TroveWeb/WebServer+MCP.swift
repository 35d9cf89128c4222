import Foundation
import TroveMCP
import TroveSystem

/// `/mcp`: the Model Context Protocol over Streamable HTTP, answered by `trove mcp`'s own server and tools. Each
/// POST carries one JSON-RPC message: a request is answered with one JSON reply, a notification or a response with
/// 202. The server opens no stream of its own (GET is 405), and keeps no session: every request stands alone.
extension WebServer {
    func serveMCP(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "POST" else {
            var refusal = WebResponses.error(
                405, "MCP over HTTP takes POST here; this server opens no stream of its own")
            refusal.headers.append(("Allow", "POST"))
            return refusal
        }
        if let version = request.headers["mcp-protocol-version"], !MCPServer.protocolVersions.contains(version) {
            return WebResponses.error(
                400,
                "MCP protocol version \(version) is not supported — this server speaks "
                    + MCPServer.protocolVersions.joined(separator: ", "))
        }
        switch JSONRPC.classify(request.body) {
        case .invalid(let id, let code, let message):
            return WebResponses.json(JSONRPC.error(id: id, code: code, message: message), status: 400)
        case .response, .notification:
            return HTTPResponse(status: 202, headers: WebResponses.common)
        case .request(let id, let method, let params):
            return WebResponses.json(await mcp.reply(id: id, method: method, params: params))
        }
    }
}
