import CMicroHTTPD
import Foundation
import Glibc

/// An HTTP/1.1 server on GNU libmicrohttpd: one thread per connection, so a slow or silent client holds only its
/// own thread and a handler may block while it works (a search, a streamed answer). libmicrohttpd parses the request
/// line and headers under `Limits.headerBytes` and drops a connection idle for `Limits.idleSeconds`; the body is
/// collected here under `Limits.bodyBytes`. `handler` is called on the connection's thread with the whole request.
package final class HTTPServer: @unchecked Sendable {  // `daemon` is set once in init and cleared once in stop
    /// What one connection may cost.
    package struct Limits: Sendable {
        /// The request line and headers (libmicrohttpd's per-connection memory pool), in bytes.
        package var headerBytes = 64 << 10
        /// The body, in bytes.
        package var bodyBytes = 1 << 20
        /// A connection silent this long is closed, in seconds.
        package var idleSeconds = 10
        /// Connections served at once; more wait in the listen queue.
        package var connections = 64

        /// The defaults.
        package init() {}
    }

    /// The port listened on (the one chosen when 0 was asked for).
    package let port: UInt16
    let limits: Limits
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    private var daemon: OpaquePointer?

    /// Listens on `address:port` and serves until `stop`.
    package init(
        address: String, port: UInt16, limits: Limits = Limits(),
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws {
        let listener = try Listener(address: address, port: port)
        self.port = listener.port
        self.limits = limits
        self.handler = handler
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(listener.descriptor), ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: limits.headerBytes, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: limits.idleSeconds, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: limits.connections, ptr_value: nil),
            MHD_OptionItem(
                option: .NOTIFY_COMPLETED, value: unsafeBitCast(completed, to: Int.self),
                ptr_value: nil),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_POLL.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        daemon = options.withUnsafeMutableBufferPointer { items in
            withVaList([MHD_OPTION.ARRAY.rawValue, items.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                MHD_start_daemon_va(UInt32(flags), 0, nil, nil, accessHandler, context, arguments)
            }
        }
        guard daemon != nil else {
            close(listener.descriptor)
            throw WebError.failure("libmicrohttpd could not start on \(address):\(listener.port)")
        }
    }

    deinit { stop() }

    /// Stops listening and closes every connection (waiting for their threads).
    package func stop() {
        guard let daemon else { return }
        self.daemon = nil
        MHD_stop_daemon(daemon)
    }

    /// The state of one request between libmicrohttpd's calls: its body so far.
    final class Pending {
        var body = Data()
        var tooLarge = false
    }

    /// One call of libmicrohttpd's access handler: the headers first, then the body in pieces, then an empty call
    /// that asks for the response.
    fileprivate func access(
        _ connection: OpaquePointer, url: String, method: String, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = state.pointee else {
            let pending = Pending()
            let declared = Self.values(connection, .HEADER_KIND).first { $0.name.lowercased() == "content-length" }
            if let declared, let length = Int(declared.value), length > limits.bodyBytes { pending.tooLarge = true }
            state.pointee = Unmanaged.passRetained(pending).toOpaque()
            return .YES
        }
        let pending = Unmanaged<Pending>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !pending.tooLarge, let upload {
                if pending.body.count + uploadSize.pointee > limits.bodyBytes {
                    pending.tooLarge = true
                    pending.body = Data()
                } else {
                    upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        pending.body.append($0, count: uploadSize.pointee)
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        let response: HTTPResponse
        if pending.tooLarge {
            response = WebResponses.error(
                413, "the request body is over \(limits.bodyBytes >> 10) KiB — send a shorter one")
        } else {
            var headers: [String: String] = [:]
            for (name, value) in Self.values(connection, .HEADER_KIND) { headers[name.lowercased()] = value }
            let request = HTTPRequest(
                method: method, path: url, query: Self.values(connection, .GET_ARGUMENT_KIND), headers: headers,
                body: pending.body)
            response = handler(request)
        }
        return Self.queue(response, on: connection)
    }

    /// Hands `response` to libmicrohttpd.
    private static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let data):
            made = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .stream(let stream):
            made = MHD_create_response_from_callback(
                UInt64.max, 4096, read, Unmanaged.passRetained(stream).toOpaque(), release)
        }
        guard let made else { return .NO }
        defer { MHD_destroy_response(made) }
        for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }

    /// The name and value pairs of one kind (headers, query arguments) of a request, in order.
    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String)] {
        final class Collected { var pairs: [(name: String, value: String)] = [] }
        let collected = Collected()
        _ = withExtendedLifetime(collected) {
            MHD_get_connection_values(
                connection, kind,
                { context, _, key, value in
                    guard let context, let key else { return .YES }
                    let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
                    collected.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
                    return .YES
                }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.pairs
    }
}

/// libmicrohttpd's access handler: hands the call to the server its context names.
private let accessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, upload, uploadSize, state in
    guard let context, let connection, let uploadSize, let state else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    return server.access(
        connection, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "",
        upload: upload, uploadSize: uploadSize, state: state)
}

/// A request is over (answered, or the client left): its pending state is released.
private let completed: MHD_RequestCompletedCallback = { _, _, state, _ in
    guard let state, let raw = state.pointee else { return }
    Unmanaged<HTTPServer.Pending>.fromOpaque(raw).release()
    state.pointee = nil
}

/// The next piece of a streamed body, waiting for it on the connection's own thread.
private let read: MHD_ContentReaderCallback = { context, _, buffer, max in
    guard let context, let buffer else { return -2 }
    let stream = Unmanaged<ResponseStream>.fromOpaque(context).takeUnretainedValue()
    guard let piece = stream.next(max: max) else { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
    _ = piece.copyBytes(to: UnsafeMutableRawBufferPointer(start: buffer, count: piece.count).bindMemory(to: UInt8.self))
    return piece.count
}

/// A streamed body is done with, sent or abandoned: its writer is told, and the stream released.
private let release: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    let stream = Unmanaged<ResponseStream>.fromOpaque(context).takeRetainedValue()
    stream.close()
}
