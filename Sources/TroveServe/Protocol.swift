import Foundation
import TroveKit
import TroveOutput
import TroveSystem

/// `trove serve`'s protocol over a Unix socket beside the index (`INDEX.sock`, mode 0600): the client writes one
/// `Envelope` (protocol version, its embedding settings, a `SearchRequest`, and how it prints hits) as a JSON line,
/// the server answers one JSON line: `{"protocol": 5, "output": "…", "count": N}` (the client's stdout, made by the
/// server, which has Codable and the formatting warm), `{"protocol": 5, "hits": [SearchHit]}` for a client that
/// prints nothing, or `{"protocol": 5, "error": "…", "code": "…"}`.
///
/// Both ends treat the other as untrusted: sizes are capped, every read and write has a timeout, requests are
/// validated before they reach the search, the socket must belong to the user on both sides (`st_uid` of the
/// file, `SO_PEERCRED` of the connection), and each connection is read and written on a thread of its own, so a
/// silent or slow client never delays another's search (searches themselves run one at a time, in order).
///
/// This file holds the protocol's types; `Client.swift` asks, `Server.swift` answers, `Socket.swift` makes the calls.
package enum SearchServer {
    /// The protocol both ends speak; a client refuses any other (the server answers, the client searches alone).
    /// (5: a request says how to scan the vectors, `scan`, where 4 had the flag `quantized`.)
    package static let protocolVersion = 5

    /// Sizes and timeouts of the protocol.
    package struct Limits: Sendable {
        /// The longest request line, in bytes; a longer one is refused unread.
        package var requestBytes = 256 * 1024
        /// The longest reply line, in bytes; a longer answer is replaced by an error.
        package var replyBytes = 32 * 1024 * 1024
        /// How long the server waits for a whole request, and for a reply to be taken.
        package var ioTimeout: Duration = .seconds(5)
        /// How long a client waits for its answer (a search behind a hung model server goes cold after this).
        package var answerTimeout: Duration = .seconds(30)
        /// Connections read or written at once; beyond, a new one is answered "busy" and closed.
        package var connections = 64

        /// The defaults.
        package init() {}
    }

    /// What the client sends.
    package struct Envelope: Codable, Sendable, Equatable {
        /// `SearchServer.protocolVersion` of the client.
        package var `protocol`: Int
        /// The client's embedding settings (`Settings.servingAdmission` in the CLI): a server whose index uses other
        /// ones refuses, so the client never gets vectors of another model server.
        package var admission: Admission
        /// The search.
        package var request: SearchRequest
        /// How the client prints the hits: the server then answers with that text instead of the hits.
        package var style: OutputStyle?

        /// An envelope with every part given.
        package init(`protocol`: Int, admission: Admission, request: SearchRequest, style: OutputStyle? = nil) {
            self.protocol = `protocol`
            self.admission = admission
            self.request = request
            self.style = style
        }

        // The wire keeps protocol 4's names.
        enum CodingKeys: String, CodingKey {
            case `protocol`, request
            case admission = "embedding"
            case style = "printing"
        }
    }

    /// The server's answer.
    package struct Response: Codable, Sendable, Equatable {
        /// The server's protocol version.
        package var `protocol`: Int?
        /// The hits, for a client that prints nothing.
        package var hits: [SearchHit]?
        /// The client's stdout for its hits, when it sent an `OutputStyle`.
        package var output: String?
        /// How many hits `output` shows.
        package var count: Int?
        /// The index's embedding model.
        package var model: String?
        /// Why there is no answer.
        package var error: String?
        /// Why it was refused, for the client to act on: see `Refusal`.
        package var code: String?

        /// An answer of this protocol's version.
        package init(
            hits: [SearchHit]? = nil, output: String? = nil, count: Int? = nil, model: String? = nil,
            error: String? = nil, code: String? = nil
        ) {
            self.protocol = SearchServer.protocolVersion
            self.hits = hits
            self.output = output
            self.count = count
            self.model = model
            self.error = error
            self.code = code
        }
    }

    /// The `code`s of a refusal.
    package enum Refusal: String, Sendable {
        /// The request line did not parse, or was not valid (a number out of range, too long).
        case badRequest = "bad-request"
        /// Another protocol version.
        case protocolMismatch = "protocol"
        /// The client's embedding settings are not the server's.
        case embedding
        /// The answer was larger than `Limits.replyBytes`.
        case tooLarge = "too-large"
        /// Too many connections at once.
        case busy
    }

    /// A refusal to send back instead of an answer.
    package struct Refused: TroveError {
        /// The answer that says why.
        package var response: Response

        /// The refusal's sentence.
        package var message: String { response.error ?? "" }

        /// A busy server is unavailable for now; every other refusal is of the request.
        package var fault: Fault { response.code == Refusal.busy.rawValue ? .unavailable : .usage }
    }
}

/// Why `trove serve` cannot listen.
package struct ServeError: TroveError, Equatable {
    /// A lowercase sentence saying what to do.
    package var message: String

    /// An error with its message.
    package init(_ message: String) { self.message = message }
}
