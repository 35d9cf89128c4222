import Foundation
import Synchronization
import TroveKit
import TroveSystem

/// `trove mcp`: the Model Context Protocol over newline-delimited JSON-RPC. It negotiates the version, lists and
/// calls the tools, lists and reads the resources, and answers `ping`. Every request runs in a task of its own, so
/// a long `ask` does not hold up a `search` and replies may come back out of order; `notifications/cancelled`
/// cancels the request's task and its reply is never sent. Malformed input is answered with the JSON-RPC error it
/// deserves and the server goes on. It only ever writes protocol messages through `send`.
package final class MCPServer: Sendable {
    /// The revisions this server speaks, newest first; an unknown one requested gets the newest.
    package static let protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    /// The longest message accepted, in bytes.
    package static let lineLimit = 4 << 20

    let tools: MCPTools
    let version: String
    /// Requests worked on at once; more get an error until some finish, so a flood cannot exhaust memory.
    let maxInFlight: Int
    private let send: @Sendable (JSON) -> Void
    private let log: @Sendable (String) -> Void
    /// Requests being worked on, by their id's JSON text.
    private let inFlight = Mutex<[String: Task<Void, Never>]>([:])
    /// Set once every in-flight request has finished after the input ended.
    private let drained = Mutex<CheckedContinuation<Void, Never>?>(nil)

    /// A server for `tools`; `send` writes one message, `log` writes one line to stderr.
    package init(
        tools: MCPTools, version: String, maxInFlight: Int = 64, send: @escaping @Sendable (JSON) -> Void,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.tools = tools
        self.version = version
        self.maxInFlight = max(1, maxInFlight)
        self.send = send
        self.log = log
    }

    /// Serves stdin/stdout until stdin ends, then waits for the requests still running.
    package static func serveStandardIO(tools: MCPTools, version: String, log: @escaping @Sendable (String) -> Void)
        async
    {
        let writer = LineWriter(descriptor: STDOUT_FILENO)
        let server = MCPServer(tools: tools, version: version, send: { writer.write($0.encoded()) }, log: log)
        for await piece in DescriptorLines.lines(STDIN_FILENO, limit: lineLimit) { server.receive(piece) }
        await server.finish()
    }

    /// Waits until no request is in flight.
    package func finish() async {
        await withCheckedContinuation { continuation in
            let idle = inFlight.withLock { $0.isEmpty }
            if idle {
                continuation.resume()
            } else {
                drained.withLock { $0 = continuation }
                // A request may have finished between the two locks.
                if inFlight.withLock({ $0.isEmpty }) { resumeDrained() }
            }
        }
    }

    /// Handles one framed piece of input; a request's work starts in its own task before this returns.
    package func receive(_ piece: LineFramer.Piece) {
        guard case .line(let line) = piece else {
            send(
                JSONRPC.error(
                    id: .null, code: JSONRPC.Code.invalidRequest,
                    message: "invalid request: message over \(Self.lineLimit >> 20) MiB"))
            return
        }
        switch JSONRPC.classify(line) {
        case .invalid(let id, let code, let message):
            send(JSONRPC.error(id: id, code: code, message: message))
        case .response:
            break
        case .notification(let method, let params):
            notify(method, params)
        case .request(let id, let method, let params):
            start(id: id, method: method, params: params)
        }
    }

    private func notify(_ method: String, _ params: JSON?) {
        guard method == "notifications/cancelled", let requestID = params?["requestId"] else { return }
        let key = String(decoding: requestID.encoded(), as: UTF8.self)
        if let task = inFlight.withLock({ $0[key] }) {
            log("mcp: request \(key) cancelled" + (params?["reason"]?.stringValue.map { ": \($0)" } ?? ""))
            task.cancel()
        }
    }

    private func start(id: JSON, method: String, params: JSON?) {
        let key = String(decoding: id.encoded(), as: UTF8.self)
        // The lock is held while the task is created, so it cannot finish (and remove itself) before it is stored.
        let refusal = inFlight.withLock { tasks -> String? in
            guard tasks[key] == nil else { return "invalid request: id \(key) is already in use" }
            guard tasks.count < maxInFlight else {
                return "server busy: \(maxInFlight) requests are in flight — wait for their replies"
            }
            tasks[key] = Task {
                let reply = await self.reply(id: id, method: method, params: params)
                let cancelled = Task.isCancelled
                self.inFlight.withLock { _ = $0.removeValue(forKey: key) }
                // A cancelled request is never answered (the client has stopped waiting for it).
                if !cancelled { self.send(reply) }
                if self.inFlight.withLock({ $0.isEmpty }) { self.resumeDrained() }
            }
            return nil
        }
        if let refusal {
            let code = refusal.hasPrefix("server busy") ? JSONRPC.Code.serverBusy : JSONRPC.Code.invalidRequest
            send(JSONRPC.error(id: id, code: code, message: refusal))
        }
    }

    private func resumeDrained() {
        drained.withLock { continuation in
            continuation?.resume()
            continuation = nil
        }
    }

    /// The reply to one request.
    package func reply(id: JSON, method: String, params: JSON?) async -> JSON {
        do {
            return JSONRPC.result(id: id, try await result(method: method, params: params ?? [:]))
        } catch let error as ProtocolError {
            return JSONRPC.error(id: id, code: error.code, message: error.message)
        } catch {
            return JSONRPC.error(id: id, code: JSONRPC.Code.internalError, message: String(describing: error))
        }
    }

    private func result(method: String, params: JSON) async throws -> JSON {
        switch method {
        case "initialize":
            return initialize(params)
        case "ping":
            return [:]
        case "tools/list":
            return ["tools": .array(MCPTools.definitions)]
        case "tools/call":
            guard let name = params["name"]?.stringValue else {
                throw ProtocolError.invalidParams("tools/call needs a tool name")
            }
            let arguments = params["arguments"] ?? [:]
            guard arguments.objectValue != nil else {
                throw ProtocolError.invalidParams("the arguments of \(name) must be an object")
            }
            return try await tools.call(name, arguments: arguments)
        case "resources/list":
            return try await tools.listResources(cursor: params["cursor"]?.stringValue)
        case "resources/read":
            guard let uri = params["uri"]?.stringValue else {
                throw ProtocolError.invalidParams("resources/read needs a uri")
            }
            return try await tools.readResource(uri)
        default:
            // Includes `server/discover` of the stateless 2026-07-28 revision: -32601 makes such clients fall back
            // to `initialize` at once instead of after a timeout.
            throw ProtocolError(code: JSONRPC.Code.methodNotFound, message: "method not found: \(method)")
        }
    }

    private func initialize(_ params: JSON) -> JSON {
        let requested = params["protocolVersion"]?.stringValue ?? ""
        let chosen = Self.protocolVersions.contains(requested) ? requested : Self.protocolVersions[0]
        if let client = params["clientInfo"]?["name"]?.stringValue {
            log("mcp: \(client) connected, protocol \(chosen)")
        }
        return [
            "protocolVersion": .string(chosen),
            "capabilities": [
                "tools": ["listChanged": false], "resources": ["listChanged": false, "subscribe": false],
            ],
            "serverInfo": ["name": "trove", "title": "Trove", "version": .string(version)],
            "instructions": .string(MCPTools.instructions),
        ]
    }
}
