import Foundation
import TroveSystem

/// JSON-RPC 2.0 as MCP uses it over stdio: one message per line, requests answered by id, notifications never.
package enum JSONRPC {
    /// The standard error codes.
    package enum Code {
        package static let parseError: Int64 = -32700
        package static let invalidRequest: Int64 = -32600
        package static let methodNotFound: Int64 = -32601
        package static let invalidParams: Int64 = -32602
        package static let internalError: Int64 = -32603
        /// In the range JSON-RPC leaves to servers: too many requests in flight.
        package static let serverBusy: Int64 = -32000
    }

    /// A message from the client, classified.
    package enum Incoming: Equatable, Sendable {
        /// A call to answer: its id (a string or a number), method and params.
        case request(id: JSON, method: String, params: JSON?)
        /// A message that takes no answer.
        case notification(method: String, params: JSON?)
        /// A reply to something the server asked; the server asks nothing, so it is ignored.
        case response
        /// Not a valid message; answered with this error (`id` is null when it could not be read).
        case invalid(id: JSON, code: Int64, message: String)
    }

    /// Reads one line. Malformed input is classified, never thrown: the server answers it and goes on.
    package static func classify(_ line: Data) -> Incoming {
        guard let value = JSON.parse(line) else {
            return .invalid(id: .null, code: Code.parseError, message: "parse error: the line is not valid JSON")
        }
        guard case .object(let message) = value else {
            if case .array = value {
                return .invalid(
                    id: .null, code: Code.invalidRequest, message: "invalid request: batches are not supported")
            }
            return .invalid(id: .null, code: Code.invalidRequest, message: "invalid request: expected a JSON object")
        }
        let id = message["id"]
        let validID: JSON? =
            switch id {
            case .string?, .integer?: id
            // exactly: an id like 1e200 has no Int64 and is not valid (found by the jsonrpc fuzz target: it trapped).
            case .number(let number)? where Int64(exactly: number) != nil: .integer(Int64(exactly: number)!)
            default: nil
            }
        guard message["jsonrpc"] == .string("2.0") else {
            return .invalid(
                id: validID ?? .null, code: Code.invalidRequest, message: "invalid request: jsonrpc must be \"2.0\"")
        }
        guard let methodValue = message["method"] else {
            if message["result"] != nil || message["error"] != nil { return .response }
            return .invalid(id: validID ?? .null, code: Code.invalidRequest, message: "invalid request: no method")
        }
        guard case .string(let method) = methodValue, !method.isEmpty else {
            return .invalid(
                id: validID ?? .null, code: Code.invalidRequest, message: "invalid request: method must be a string")
        }
        let params = message["params"]
        if let params, params.objectValue == nil, params.arrayValue == nil {
            return .invalid(
                id: validID ?? .null, code: Code.invalidRequest,
                message: "invalid request: params must be an object or an array")
        }
        guard id != nil else { return .notification(method: method, params: params) }
        guard let validID else {
            return .invalid(
                id: .null, code: Code.invalidRequest, message: "invalid request: id must be a string or a number")
        }
        return .request(id: validID, method: method, params: params)
    }

    /// A success reply.
    package static func result(id: JSON, _ result: JSON) -> JSON {
        ["jsonrpc": "2.0", "id": id, "result": result]
    }

    /// An error reply.
    package static func error(id: JSON, code: Int64, message: String) -> JSON {
        ["jsonrpc": "2.0", "id": id, "error": ["code": .integer(code), "message": .string(message)]]
    }

    /// A notification from the server.
    package static func notification(method: String, params: JSON) -> JSON {
        ["jsonrpc": "2.0", "method": .string(method), "params": params]
    }
}

/// A request the server refuses with a JSON-RPC error (unknown method, bad params) rather than a tool error.
struct ProtocolError: Error {
    var code: Int64
    var message: String

    static func invalidParams(_ message: String) -> ProtocolError {
        ProtocolError(code: JSONRPC.Code.invalidParams, message: "invalid params: " + message)
    }
}
